package agent

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/crankshaft/crankshaft/internal/agent/output"
	"github.com/crankshaft/crankshaft/internal/agent/runtime"
	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/measure"
	"github.com/crankshaft/crankshaft/internal/parsers"
)

// tailLines is how many lines of output an error quotes.
const tailLines = runtime.TailLines

// run is the job's goroutine from Initializing to its end.
func (a *Agent) run(ctx context.Context, j *job) {
	defer close(j.done)
	err := a.execute(ctx, j)
	j.mu.Lock()
	j.handle = nil // no profiled window opens on a program that has ended
	j.mu.Unlock()
	j.endProfiles()
	j.finish(err)
	j.cancel() // ends the job's sampling and scraping, whatever ended it
}

// minInterval bounds how often a job may ask to be sampled.
const minInterval = 10 * time.Millisecond

// interval is the job's sampling and scraping interval.
func (a *Agent) interval(j *job) time.Duration {
	if d := j.spec.Interval.Std(); d > 0 {
		return max(d, minInterval)
	}
	return a.opts.Interval
}

func (a *Agent) execute(ctx context.Context, j *job) error {
	if err := a.prepareRun(ctx, j); err != nil {
		return err
	}
	j.mu.Lock()
	j.buildLog = j.out.Len() // what came before is the build's log (crank --output-dir)
	j.mu.Unlock()
	if err := j.advance(api.StateStarting, "source ready"); err != nil {
		return err
	}
	a.firstRequest(ctx, j)
	if j.spec.WarmupArguments != "" {
		if err := a.warmup(ctx, j); err != nil {
			return err
		}
	}
	if at := j.spec.StartAt; at != nil && j.spec.WaitForExit {
		// the measured run only: the warm-up run does not wait for the window
		j.addedEnv = maps.Clone(j.addedEnv)
		if j.addedEnv == nil {
			j.addedEnv = map[string]string{}
		}
		j.addedEnv[api.StartAtEnv] = at.Format(time.RFC3339Nano)
		j.log.Info("the measured run begins its window at the load's one start", "startAt", at.Format(time.RFC3339Nano))
	}
	return a.runMeasured(ctx, j)
}

// runMeasured starts the measured run, waits for it to be ready and then for its end.
func (a *Agent) runMeasured(ctx context.Context, j *job) error {
	var stdout *output.Buffer
	var out io.Writer = j.out
	if j.spec.WaitForExit {
		stdout = output.New(0)
		out = io.MultiWriter(j.out, stdout)
	}
	from := j.out.Len()
	started := time.Now()
	h, err := a.start(ctx, j, j.spec.Arguments, out)
	if err != nil {
		return err
	}
	defer func() { j.setExit(h.Stop(StopGrace)) }() // no-op when it has exited
	j.mu.Lock()
	j.measuredStart, j.handle = started, h
	j.mu.Unlock()
	j.log.Info("started", "what", h.String(), "args", j.spec.Arguments)
	go a.sampleLoop(ctx, j, h, false, started)
	if err := a.waitReady(ctx, j, h, from); err != nil {
		return err
	}
	startMs := float64(time.Since(started).Microseconds()) / 1000
	j.mu.Lock()
	j.startMs = startMs
	j.mu.Unlock()
	j.record(api.Measurement{Name: measure.StartTime, Timestamp: time.Now(), Value: startMs})
	if err := j.advance(api.StateRunning, "ready"); err != nil {
		return err
	}
	go a.scrapeLoop(ctx, j, h, started)
	return a.supervise(ctx, j, h, from, stdout)
}

// supervise waits for the running process's end: a stop, a waitForExit timeout, or its exit.
func (a *Agent) supervise(ctx context.Context, j *job, p runtime.Handle, from int64, stdout *output.Buffer) error {
	var timeout <-chan time.Time
	if j.spec.WaitForExit && j.spec.Timeout > 0 {
		t := time.NewTimer(j.spec.Timeout.Std())
		defer t.Stop()
		timeout = t.C
	}
	select {
	case <-ctx.Done():
		if j.spec.WaitForExit && j.parser != nil {
			return a.interrupted(j, p, from, stdout)
		}
		j.setExit(p.Stop(StopGrace))
		a.jobStatistics(j, from)
		return errStopping
	case <-timeout:
		e := p.Stop(StopGrace)
		j.setExit(e)
		return fmt.Errorf("job %s: %s did not exit within %s and was stopped (%s); last output:\n%s",
			j.id, j.program(), j.spec.Timeout.Std(), e, j.out.Tail(from, tailLines))
	case <-p.Wait():
	}
	e := p.Exit()
	j.setExit(e)
	j.log.Info("exited", "what", p.String(), "exit", e.String())
	if !e.Success() {
		return fmt.Errorf("job %s: %s exited with %s; last output:\n%s", j.id, j.program(), e, j.out.Tail(from, tailLines))
	}
	a.jobStatistics(j, from)
	if !j.spec.WaitForExit || j.parser == nil {
		return nil
	}
	return a.parse(j, stdout, e.Time)
}

// interrupted ends a load job stopped before its end as Ctrl-C would, so that its tool prints what
// it counted until then (wrk, bombardier, ghz and crank load do; h2load does not), and parses that:
// a stopped run keeps the load's figures, which the controller marks partial. A tool that printed
// nothing readable is said so in a job warning.
func (a *Agent) interrupted(j *job, p runtime.Handle, from int64, stdout *output.Buffer) error {
	e := p.Interrupt(StopGrace)
	j.setExit(e)
	a.jobStatistics(j, from)
	ran := e.Time.Sub(j.measuredStartTime()).Round(100 * time.Millisecond)
	if err := a.parse(j, stdout, e.Time); err != nil {
		j.warn(fmt.Sprintf("stopped after %s: the load's figures are not measured (%s printed no summary the parser %q reads when interrupted)",
			ran, j.program(), j.parser.Name()))
		j.log.Debug("interrupted load not parsed", "err", err)
		return errStopping
	}
	j.warn(fmt.Sprintf("stopped after %s: the load's figures cover those %s only (partial)", ran, ran))
	return errStopping
}

// parse turns the measured run's stdout into measurements stamped with the exit time. The output
// is copied once; each of the parser's readers reads that copy.
func (a *Agent) parse(j *job, stdout *output.Buffer, at time.Time) error {
	out := stdout.Since(0)
	values, err := j.parser.Parse(bytes.NewReader(out))
	if err != nil {
		return fmt.Errorf("job %s: parser %q: %w; last output:\n%s", j.id, j.parser.Name(), err, stdout.Tail(0, tailLines))
	}
	j.notMeasure(parsers.Implausible(values)) // any tool's impossible figure: not measured, with why
	names := make([]string, 0, len(values))
	for n := range values {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		j.record(api.Measurement{Name: n, Timestamp: at, Value: values[n]})
	}
	if nm, ok := j.parser.(parsers.NotMeasuredParser); ok {
		j.notMeasure(nm.NotMeasured(bytes.NewReader(out)))
	}
	if wp, ok := j.parser.(parsers.WarningParser); ok {
		for _, w := range wp.Warnings(bytes.NewReader(out)) {
			j.warn(fmt.Sprintf("parser %q: %s", j.parser.Name(), w))
		}
	}
	if tp, ok := j.parser.(parsers.TimelineParser); ok {
		ms, err := tp.Timeline(bytes.NewReader(out))
		if err != nil {
			j.warn(fmt.Sprintf("parser %q: the per-second timeline is not recorded: %v", j.parser.Name(), err))
		}
		j.record(ms...)
	}
	if lr, ok := j.parser.(parsers.LoadReporter); ok {
		rep, err := lr.LoadReport(bytes.NewReader(out))
		if err != nil {
			j.warn(fmt.Sprintf("parser %q: the load's window and histogram are not recorded: %v", j.parser.Name(), err))
		}
		j.setLoadReport(rep)
	}
	j.log.Info("output parsed", "parser", j.parser.Name(), "measurements", len(names))
	return nil
}

// warmup runs the program with the warm-up arguments and waits for it; its samples are marked.
func (a *Agent) warmup(ctx context.Context, j *job) error {
	from := j.out.Len()
	h, err := a.start(ctx, j, j.spec.WarmupArguments, j.out)
	if err != nil {
		return fmt.Errorf("job %s: warm-up: %w", j.id, err)
	}
	go a.sampleLoop(ctx, j, h, true, time.Now())
	select {
	case <-ctx.Done():
		h.Stop(StopGrace)
		return errStopping
	case <-h.Wait():
	}
	if e := h.Exit(); !e.Success() {
		return fmt.Errorf("job %s: warm-up run failed (%s); last output:\n%s", j.id, e, j.out.Tail(from, tailLines))
	}
	return nil
}

// env is the agent's environment without its secrets (secrets.go), plus the job's variables
// (which win).
func (j *job) env() []string {
	keys := make([]string, 0, len(j.spec.Environment))
	for k := range j.spec.Environment {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	env := j.user.environ(withoutSecrets(os.Environ()))
	for _, k := range slices.Sorted(maps.Keys(j.addedEnv)) {
		env = append(env, k+"="+j.addedEnv[k])
	}
	for _, k := range keys {
		env = append(env, k+"="+j.spec.Environment[k])
	}
	return env
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
