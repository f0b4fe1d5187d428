package controller

import (
	"context"
	"time"

	"github.com/crankshaft/crankshaft/internal/results"
)

// salvage stops every job of an interrupted iteration and collects what it measured, on a
// context of its own (the run's is cancelled), bounded by StopTimeout. A job that cannot be
// stopped or read is left out; the deferred cleanup still deletes it.
func (c *Controller) salvage(ctx context.Context, services []Service, all []*instance) map[string]*results.JobResult {
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), c.opts.StopTimeout)
	defer cancel()
	var started []*instance
	for _, in := range all {
		if in.id != "" && in.status.Skipped == "" {
			started = append(started, in)
		}
	}
	if len(started) == 0 {
		return nil
	}
	// The loads first, while the servers still answer: each is interrupted as Ctrl-C would and
	// reports what it counted until then. Then the servers.
	var loads, others []*instance
	for _, in := range started {
		if in.job.WaitForExit {
			loads = append(loads, in)
		} else {
			others = append(others, in)
		}
	}
	var loadEnd time.Time
	for i, group := range [][]*instance{loads, others} {
		if err := c.stopAll(sctx, group); err != nil {
			c.log.Warn("interrupted: stopping", "err", err)
		}
		if i == 0 {
			loadEnd = time.Now()
		}
	}
	var measured []*instance
	for _, in := range started {
		m, err := in.client.Measurements(sctx, in.id)
		if err != nil {
			c.log.Warn("interrupted: reading measurements", "service", in.service, "agent", in.url, "err", err)
			continue
		}
		in.measured = m
		in.toLocal()
		measured = append(measured, in)
	}
	if len(measured) == 0 {
		return nil
	}
	c.markInterruptedWindow(loads, others, loadEnd)
	jobs, err := assemble(services, measured)
	if err != nil {
		c.log.Warn("interrupted: summarizing", "err", err)
		return nil
	}
	for _, jr := range jobs {
		jr.Environment["partial"] = true
	}
	return jobs
}

// interrupted completes a result cut short after finished of n iterations: the finished
// iterations' results (averaged, each kept), or with none, the unfinished one's partial jobs.
// It is nil when nothing was measured.
func (c *Controller) interrupted(ex results.Exclusion, res *results.Result, perService map[string][]map[string]float64, partial map[string]*results.JobResult, finished, n int) *results.Result {
	res.Interrupted = &results.Interruption{FinishedIterations: finished, Iterations: n}
	if finished == 0 {
		if len(partial) == 0 {
			return nil
		}
		res.Interrupted.Partial = true
		res.JobResults.Jobs = partial
		return res
	}
	if n > 1 {
		combineIterations(c.opts.Progress, ex, res, perService, finished)
	}
	return res
}

// markInterruptedWindow marks the servers' samples outside the loads' measured window, as a
// finished run does, when a load had started measuring: the window ends when the loads were
// stopped, so the servers' figures cover the same time as the loads' partial ones.
func (c *Controller) markInterruptedWindow(loads, servers []*instance, loadEnd time.Time) {
	var first time.Time
	measuring := false
	for _, in := range loads {
		if _, ok := in.measuredStartLocal(); ok {
			measuring = true
		}
		if first.IsZero() || in.started.Before(first) {
			first = in.started
		}
	}
	if measuring {
		from, to := measuredStart(loads, first), measuredEnd(loads, loadEnd)
		c.warnIdle(servers, markOutsideLoad(servers, first, from, to), from, to)
	}
}
