package controller

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/measure"
	"github.com/crankshaft/crankshaft/internal/results"
)

// RunOnce runs the services once: the services that do not wait for exit (servers, databases)
// start first, in order, each ready before the next; then every load service starts at once and
// runs to completion; then everything is stopped, measured and deleted, even when ctx is cancelled.
// When ctx is cancelled, the jobs are stopped and what they measured is returned with the error.
func (c *Controller) RunOnce(ctx context.Context, services []Service) (map[string]*results.JobResult, error) {
	h := &held{}
	defer c.cleanup(ctx, h.all)
	return c.runPass(ctx, services, h, true)
}

// held is what stays between the passes of a run: the instances of the services kept running
// across iterations (crank's --repeat), and the packed sources.
type held struct {
	keep map[string]bool        // services kept running between passes
	ins  map[string][]*instance // their instances, once started
	all  []*instance            // the kept instances, to delete at the end
	pk   packs
}

// runPass runs one iteration. Kept services started by an earlier pass are reused and left
// running unless last; every other job of the pass is stopped and deleted before it returns (its
// output saved first). When ctx is cancelled, what the pass's jobs measured is returned with the
// error.
func (c *Controller) runPass(ctx context.Context, services []Service, h *held, last bool) (jobs map[string]*results.JobResult, err error) {
	passStart := time.Now()
	var all, fresh, servers, loads, reused []*instance
	defer func() {
		c.saveOutputs(context.WithoutCancel(ctx), all)
		c.cleanup(ctx, fresh)
	}()
	defer func() {
		if err != nil && ctx.Err() != nil {
			jobs = c.salvage(ctx, services, all)
		}
	}()
	h.pk.prefetch(ctx, services, c.opts.Exclude)
	for _, s := range services {
		if ins, ok := h.ins[s.Name]; ok {
			all, servers, reused = append(all, ins...), append(servers, ins...), append(reused, ins...)
			continue
		}
		urls, err := c.endpoints(ctx, s)
		if err != nil {
			return nil, err
		}
		if len(s.Shares) > 0 && len(s.Shares) != len(urls) {
			return nil, fmt.Errorf("service %q: %d shares for %d endpoints", s.Name, len(s.Shares), len(urls))
		}
		var mine []*instance
		for i, u := range urls {
			ag, err := c.client(ctx, u, s.Fetched[u])
			if err != nil {
				return nil, fmt.Errorf("service %q: %w", s.Name, err)
			}
			in := &instance{service: s.Name, url: u, client: ag.client, info: ag.info, clockOffset: ag.offset, job: s.Job, rank: i + 1}
			if len(s.Shares) > 0 {
				in.share, in.job = &s.Shares[i], s.Shares[i].Job
			}
			mine = append(mine, in)
			if s.Job.WaitForExit {
				loads = append(loads, in)
			} else {
				servers = append(servers, in)
			}
		}
		all = append(all, mine...)
		if h.keep[s.Name] && !s.Job.WaitForExit && !last {
			if h.ins == nil {
				h.ins = map[string][]*instance{}
			}
			h.ins[s.Name] = mine
			h.all = append(h.all, mine...)
		} else {
			fresh = append(fresh, mine...)
		}
	}
	if err := errors.Join(checkBuildable(fresh), checkPrograms(fresh)); err != nil {
		return nil, err
	}
	ready := append([]*instance{}, reused...)
	for _, group := range groupByService(servers) {
		if len(group) > 0 && slices.Contains(reused, group[0]) {
			continue
		}
		if err := c.launchAll(ctx, group, &h.pk); err != nil {
			return nil, err
		}
		err := c.waitUntil(ctx, group, ready, func(in *instance) bool { return in.status.State == api.StateRunning })
		if err != nil {
			return nil, err
		}
		for _, in := range group {
			c.report(in, "ready")
		}
		ready = append(ready, group...)
	}
	loadStart := time.Now()
	if at := oneStart(loads, loadStart); !at.IsZero() {
		c.log.Info("split load: one start", "at", at, "in", at.Sub(loadStart))
	}
	if err := c.launchAll(ctx, loads, &h.pk); err != nil {
		return nil, err
	}
	opened := c.openAtMeasured(ctx, ready, loads)
	err = c.waitUntil(ctx, loads, ready, func(in *instance) bool { return in.status.State.Terminal() })
	opened()
	c.closeProfiles(context.WithoutCancel(ctx), ready, measuredStart(loads, loadStart), measuredEnd(loads, time.Now()))
	if gl := (*GeneratorLost)(nil); errors.As(err, &gl) {
		return c.withoutLost(ctx, services, all, gl), err
	}
	if err != nil {
		return nil, err
	}
	loadEnd := time.Now()
	for _, in := range loads {
		c.report(in, "done")
	}
	var stop []*instance
	for _, in := range ready {
		if last || !slices.Contains(h.all, in) {
			stop = append(stop, in)
		}
	}
	if err := c.stopAll(ctx, stop); err != nil {
		return nil, err
	}
	if err := c.collect(ctx, all); err != nil {
		return nil, err
	}
	for _, in := range reused {
		in.dropBefore(passStart) // samples of earlier passes
	}
	from, to := measuredStart(loads, loadStart), measuredEnd(loads, loadEnd)
	c.warnIdle(servers, markOutsideLoad(servers, loadStart, from, to), from, to)
	return keepPlausible(services, all)
}

func groupByService(ins []*instance) [][]*instance {
	var out [][]*instance
	for i, in := range ins {
		if i > 0 && ins[i-1].service == in.service {
			out[len(out)-1] = append(out[len(out)-1], in)
			continue
		}
		out = append(out, []*instance{in})
	}
	return out
}

func (c *Controller) report(in *instance, what string) {
	if in.status.Skipped != "" {
		c.progress(in.service, "skipped on %s: %s", in.url, in.status.Skipped)
		return
	}
	c.step(in.service, "%s on %s (%s)", what, in.url, time.Since(in.started).Round(time.Millisecond))
}

// launchAll launches the instances concurrently and returns every failure, joined.
func (c *Controller) launchAll(ctx context.Context, ins []*instance, pk *packs) error {
	errs := make(chan error, len(ins))
	for _, in := range ins {
		go func() { errs <- c.launch(ctx, in, pk) }()
	}
	var all []error
	for range ins {
		if err := <-errs; err != nil {
			all = append(all, err)
		}
	}
	return errors.Join(all...)
}

// stopAll asks every instance's agent to stop its job, all at once, then waits (bounded by
// StopTimeout) for each job to end. Every failure is logged and returned, joined: one dead agent
// does not keep the others' jobs running.
func (c *Controller) stopAll(ctx context.Context, ins []*instance) error {
	var live []*instance
	for _, in := range ins {
		if in.status.Skipped == "" && !in.status.State.Terminal() {
			live = append(live, in)
		}
	}
	errs := make([]error, len(live)+1)
	var wg sync.WaitGroup
	for i, in := range live {
		wg.Go(func() {
			if err := in.client.Stop(ctx, in.id); err != nil {
				errs[i] = fmt.Errorf("service %q: stopping job on %s: %w", in.service, in.url, err)
				c.log.Warn("stopping a job", "service", in.service, "agent", in.url, "err", err)
			}
		})
	}
	wg.Wait()
	var asked []*instance // whose agent took the stop: the others' leases end their jobs
	for i, in := range live {
		if errs[i] == nil {
			asked = append(asked, in)
		}
	}
	sctx, cancel := context.WithTimeout(ctx, c.opts.StopTimeout)
	defer cancel()
	err := c.waitUntil(sctx, asked, nil, func(in *instance) bool { return in.status.State.Terminal() })
	if err != nil && errors.Is(err, context.DeadlineExceeded) {
		errs[len(live)] = fmt.Errorf("jobs did not stop within %s", c.opts.StopTimeout)
	}
	// A server that fails on stop (killed by the signal) still has its measurements.
	return errors.Join(errs...)
}

func (c *Controller) collect(ctx context.Context, ins []*instance) error {
	for _, in := range ins {
		if in.status.Skipped != "" {
			continue
		}
		m, err := in.client.Measurements(ctx, in.id)
		if err != nil {
			return fmt.Errorf("service %q: reading measurements from %s: %w", in.service, in.url, err)
		}
		in.measured = m
		in.toLocal()
		c.reportWarnings(in)
	}
	return nil
}

// cleanup deletes every job, concurrently, even when ctx is cancelled. A job on an agent that
// stopped answering gets a short try: it is the agent's lease that cleans it up.
func (c *Controller) cleanup(ctx context.Context, ins []*instance) {
	dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), c.opts.StopTimeout)
	defer cancel()
	var wg sync.WaitGroup
	for _, in := range ins {
		if in.id == "" {
			continue
		}
		wg.Go(func() {
			ctx := dctx
			if in.silent {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(dctx, silentDeleteTimeout)
				defer cancel()
			}
			if err := in.client.Delete(ctx, in.id); err != nil {
				c.log.Warn("deleting job", "service", in.service, "agent", in.url, "err", err)
			}
		})
	}
	wg.Wait()
}

// measuredStart is when the load's measured window began: the latest measured-run start any
// load agent reported (or the one start a split load was given, when later), else the load start
// plus its warm-up.
func measuredStart(loads []*instance, loadStart time.Time) time.Time {
	start := loadStart
	for _, in := range loads {
		s := loadStart.Add(in.job.Warmup.Std())
		if ms, ok := in.measuredStartLocal(); ok {
			s = ms
		}
		if at := in.job.StartAt; at != nil && at.Add(-in.clockOffset).After(s) {
			s = at.Add(-in.clockOffset) // the generator waited for the load's one start
		}
		if s.After(start) {
			start = s
		}
	}
	return start
}

// measuredEnd is when the first load's measured run ended, as its agent saw its process exit, or
// seen, when the controller saw the loads ended: it learns of an end only at its next status read
// (up to a poll later, or once a stop returned), and a server's sample taken in that gap covers
// an idle tail. The servers' window is the time every load was measuring, as it opens at the
// last one's start.
func measuredEnd(loads []*instance, seen time.Time) time.Time {
	end := seen
	for _, in := range loads {
		if e, ok := in.measuredEndLocal(); ok && e.Before(end) {
			end = e
		}
	}
	return end
}

// isOnce tells the measurements taken once per job rather than sampled.
func isOnce(name string) bool {
	return name == measure.BuildTime || name == measure.StartTime || name == measure.PublishedSize
}

// dropBefore removes the samples taken before t (a kept server's earlier iterations), keeping the
// measurements taken once per job.
func (in *instance) dropBefore(t time.Time) {
	kept := in.measured.Measurements[:0]
	for _, m := range in.measured.Measurements {
		if isOnce(m.Name) || !m.Timestamp.Before(t) {
			kept = append(kept, m)
		}
	}
	in.measured.Measurements = kept
}
