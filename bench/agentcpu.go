package main

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/measure"
	"github.com/crankshaft/crankshaft/internal/stats"
)

// agentCase is the agent's own CPU over a window while it samples one running job.
type agentCase struct {
	Job      string
	Interval time.Duration
	Window   time.Duration
	Ticks    uint64 // the agent's utime+stime over the window (/proc/<pid>/stat)
	SchedNs  uint64 // the same from its threads' schedstat, in nanoseconds
	Samples  int    // CPU samples the agent recorded for the job in the window
	// Slices is the agent's CPU in each agentSlice of the window, in percent of one core (from
	// schedstat): the figures its verdict's interval is taken over.
	Slices []float64
	Err    string
}

// agentTarget is the most CPU, in percent of one core, the agent may take sampling a job every 1 s.
const agentTarget = 1.0

// Met is the case's verdict on agentTarget, judged on the interval of its slices' mean, and why
// when it cannot tell; "-" for a case at another interval, or one that failed.
func (c agentCase) Met() (verdict, why string) {
	if c.Interval != time.Second || c.Err != "" {
		return verdictNone, ""
	}
	return metMeanBelow(c.Slices, agentTarget)
}

// SliceFigure is the mean of the case's slices with its 95 % interval, or the schedstat figure
// of the whole window when there are too few slices for an interval.
func (c agentCase) SliceFigure() string {
	if len(c.Slices) < 2 {
		return fmt.Sprintf("%.2f%%", c.SchedPercent())
	}
	mean, half := stats.MeanCI95(c.Slices)
	return fmt.Sprintf("%.2f%% (95 %% interval %.2f-%.2f%%, %d slices)", mean, mean-half, mean+half, len(c.Slices))
}

// agentSlice is the part of the window one of a case's figures covers: 1 s holds one sample at
// the 1 s interval, and a 10 s window gives 10 figures, enough for an interval of their mean.
const agentSlice = time.Second

// Percent is the agent's CPU in percent of one core, from the tick counts.
func (c agentCase) Percent() float64 {
	return ticksToUS(c.Ticks) / float64(c.Window.Microseconds()) * 100
}

// SchedPercent is the same from schedstat (finer than the 10 ms ticks).
func (c agentCase) SchedPercent() float64 {
	return float64(c.SchedNs) / float64(c.Window.Nanoseconds()) * 100
}

// agentSection is the agent's part of the report.
type agentSection struct {
	Command string
	Cases   []agentCase
	Skipped string
}

// agentCPU starts crank-agent and measures its CPU while it samples a `sleep` and the plaintext
// app (whose metrics it also scrapes), at a 1 s and a 100 ms interval.
func (e *env) agentCPU(ctx context.Context) agentSection {
	var sec agentSection
	port, err := freePort()
	if err != nil {
		sec.Skipped = "skipped: " + err.Error()
		return sec
	}
	url := "http://127.0.0.1:" + strconv.Itoa(port)
	argv := []string{e.tools.agent, "--url", url, "--dir", filepath.Join(e.tmp, "agent")}
	sec.Command = e.show(argv)
	// The agent requires a token on every endpoint but /health: one made for this run, passed in
	// its environment (not its command line, which other users see).
	token := rand.Text()
	p, err := e.procs.start(argv, append(os.Environ(), "CRANK_AGENT_TOKEN="+token), nil)
	if err != nil {
		sec.Skipped = "skipped: " + err.Error()
		return sec
	}
	defer e.procs.stop(p, 5*time.Second)
	c, err := api.NewClient(url, token, nil)
	if err == nil {
		err = waitHealthy(ctx, c, p)
	}
	if err != nil {
		sec.Skipped = "skipped: crank-agent: " + err.Error()
		return sec
	}
	for _, iv := range []time.Duration{time.Second, 100 * time.Millisecond} {
		for _, j := range e.agentJobs(iv) {
			ac := agentCase{Job: j.Name, Interval: iv, Window: e.cfg.agentWindow}
			if err := e.agentWindow(ctx, c, p.Pid(), j, &ac); err != nil {
				ac.Err = err.Error()
			}
			e.log.Info("agent", "job", ac.Job, "interval", iv, "cpu_percent", round2(ac.Percent()),
				"schedstat_percent", round2(ac.SchedPercent()), "samples", ac.Samples, "err", ac.Err)
			sec.Cases = append(sec.Cases, ac)
		}
	}
	return sec
}

// agentJobs are the jobs sampled: a process doing nothing, and the plaintext app with its
// Prometheus endpoint, which the agent scrapes into the default counters.
func (e *env) agentJobs(interval time.Duration) []api.Job {
	appPort, _ := freePort()
	metricsPort, _ := freePort()
	return []api.Job{
		{Service: "bench", Name: "sleep 60", Executable: "sleep", Arguments: "60", Interval: api.Duration(interval)},
		{Service: "bench", Name: "plaintext app, metrics scraped", Executable: e.tools.plaintext,
			Arguments: fmt.Sprintf("--address 127.0.0.1 --port %d --metrics-port %d", appPort, metricsPort),
			Port:      appPort, MetricsPort: metricsPort, ReadyStateText: "Application started.",
			Interval: api.Duration(interval)},
	}
}

// agentWindow runs job j, waits for it to run and settle, and measures the agent over the window.
func (e *env) agentWindow(ctx context.Context, c *api.Client, pid int, j api.Job, ac *agentCase) error {
	id, err := c.Submit(ctx, j)
	if err != nil {
		return err
	}
	defer func() { _ = c.Delete(context.WithoutCancel(ctx), id) }()
	if err := c.Start(ctx, id); err != nil {
		return err
	}
	if err := waitRunning(ctx, c, id); err != nil {
		return err
	}
	if err := pause(ctx, time.Second); err != nil { // the start-up's work (readiness, first scrape) is done
		return err
	}
	t0, s0, err := agentCounters(pid)
	if err != nil {
		return err
	}
	from := time.Now()
	if err := agentSlices(ctx, pid, s0, ac); err != nil {
		return err
	}
	t1, s1, err := agentCounters(pid)
	if err != nil {
		return err
	}
	ac.Window = time.Since(from)
	ac.Ticks, ac.SchedNs = t1-t0, s1-s0
	m, err := c.Measurements(ctx, id)
	if err != nil {
		return err
	}
	for _, s := range m.Measurements {
		if s.Name == measure.CPU && !s.Timestamp.Before(from) {
			ac.Samples++
		}
	}
	return nil
}

// agentSlices waits out ac.Window in slices of agentSlice (the last one shorter when the window
// is not a whole number of slices), recording the agent's CPU in each from its schedstat; sched
// is the schedstat read just before the window.
func agentSlices(ctx context.Context, pid int, sched uint64, ac *agentCase) error {
	for left := ac.Window; left > 0; left -= agentSlice {
		d := min(left, agentSlice)
		start := time.Now()
		if err := pause(ctx, d); err != nil {
			return err
		}
		ns, err := schedNanos(pid)
		if err != nil {
			return err
		}
		ac.Slices = append(ac.Slices, float64(ns-sched)/float64(time.Since(start).Nanoseconds())*100)
		sched = ns
	}
	return nil
}

func agentCounters(pid int) (ticks, nanos uint64, err error) {
	st, err := readStat(pid)
	if err != nil {
		return 0, 0, err
	}
	ns, err := schedNanos(pid)
	return st.Ticks(), ns, err
}

// pause waits for d or the context's end: a measurement window, not a synchronisation.
func pause(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// waitHealthy polls the agent's /health until it answers, it exits, or 15 s pass.
func waitHealthy(ctx context.Context, c *api.Client, p *proc) error {
	return poll(ctx, 15*time.Second, 50*time.Millisecond, p.done, func() (bool, error) {
		err := c.Health(ctx)
		if ae := new(api.AgentError); errors.As(err, &ae) {
			return false, err // it answers, wrongly
		}
		return err == nil, nil // not listening yet
	})
}

// waitRunning polls a job's status until it runs (or fails, or 20 s pass).
func waitRunning(ctx context.Context, c *api.Client, id string) error {
	return poll(ctx, 20*time.Second, 50*time.Millisecond, nil, func() (bool, error) {
		st, err := c.Status(ctx, id)
		if err != nil {
			return false, err
		}
		if st.State.Terminal() {
			return false, fmt.Errorf("job %s ended %s: %s", id, st.State, st.Error)
		}
		return st.State == api.StateRunning, nil
	})
}

// poll calls check every step until it says done, fails, exited is closed, or limit passes.
func poll(ctx context.Context, limit, step time.Duration, exited <-chan struct{}, check func() (bool, error)) error {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	tick := time.NewTicker(step)
	defer tick.Stop()
	for {
		ok, err := check()
		if ok || err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("not done within %s: %w", limit, ctx.Err())
		case <-exited:
			return errors.New("the process exited")
		case <-tick.C:
		}
	}
}
