package controller

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/measure"
	"github.com/crankshaft/crankshaft/internal/progress"
)

// serverRPS is the per-second request rate an app's request counter gives (app_requests_total
// read as a rate); loadRPS is a load generator's own timeline of requests per second, when it has one.
// The live figure is the servers' sum, else the loads' sum.
const (
	serverRPS = "runtime-counter/requests-per-second"
	loadRPS   = measure.RPS
)

// liveEvery is how often the live figures are read from the agents.
const liveEvery = time.Second

// liveFresh is how old a sample may be to count as live.
const liveFresh = 3 * time.Second

// live follows one wait: each instance's current phase and when it began, and the latest
// requests/s and CPU read from the agents.
type live struct {
	c       *Controller
	noted   time.Duration // the build time last noted in the progress lines (no Status)
	since   map[*instance]phaseMark
	fetched time.Time
	rps     float64
	cpu     []progress.ServiceValue
}

type phaseMark struct {
	state api.JobState
	at    time.Time
}

func (c *Controller) newLive() *live {
	return &live{c: c, since: map[*instance]phaseMark{}, rps: math.NaN()}
}

// end clears the status: the wait is over.
func (l *live) end() {
	if l.c.opts.Status != nil {
		l.c.opts.Status(progress.Status{})
	}
}

// show reports the status of the first target not yet done, with live figures while it runs.
func (l *live) show(ctx context.Context, targets, others []*instance, done func(*instance) bool) {
	if l.c.opts.Status == nil {
		l.noteBuild(targets, done)
		return
	}
	now := time.Now()
	var subject *instance
	for _, in := range append(append([]*instance{}, targets...), others...) {
		if m, ok := l.since[in]; !ok || m.state != in.status.State {
			l.since[in] = phaseMark{state: in.status.State, at: now}
		}
	}
	for _, in := range targets {
		if in.status.Skipped == "" && !done(in) {
			subject = in
			break
		}
	}
	if subject == nil {
		return
	}
	st := progress.Status{Service: subject.service, RPS: math.NaN(), Elapsed: now.Sub(l.since[subject].at)}
	switch s := subject.status.State; {
	case s == api.StateNew || s == api.StateInitializing:
		st.Phase = "building"
		if subject.job.BuildCommand == "" {
			st.Phase = "preparing"
		}
		st.Elapsed = now.Sub(subject.started)
	case s == api.StateWaiting:
		st.Phase = "waiting for its source"
	case s == api.StateStarting && subject.job.WaitForExit && subject.job.WarmupArguments != "":
		st.Phase = "warm-up" // a load's warm-up run
	case s == api.StateStarting:
		st.Phase = "starting"
	case s == api.StateStopping || s.Terminal():
		st.Phase = "stopping"
	case s == api.StateRunning && !subject.job.WaitForExit:
		st.Phase = "stopping" // a running server is ready: only the stop wait still waits on it
	default:
		l.measuring(&st, subject, now)
		l.refresh(ctx, append(append([]*instance{}, others...), targets...), now)
		st.RPS, st.CPU = l.rps, l.cpu
	}
	l.c.opts.Status(st)
}

// noteBuild is the status without a status line (a sweep, a capacity search, a bisection): a
// progress line every BuildNoteEvery while a job builds, so a first build (an empty build cache:
// a minute or more) is not silent.
func (l *live) noteBuild(targets []*instance, done func(*instance) bool) {
	for _, in := range targets {
		if in.status.Skipped != "" || done(in) || in.job.BuildCommand == "" ||
			(in.status.State != api.StateNew && in.status.State != api.StateInitializing) {
			continue
		}
		every := l.c.opts.BuildNoteEvery
		if took := time.Since(in.started); took-l.noted >= every {
			l.noted = took.Truncate(every)
			l.c.progress(in.service, "still building on %s (%s; a first build takes longer, later runs reuse it)", in.url, l.noted)
		}
		return
	}
}

// measuring fills a running load's phase: warm-up until its measured run starts, then measuring
// with the time left of its duration variable.
func (l *live) measuring(st *progress.Status, in *instance, now time.Time) {
	ms, ok := in.measuredStartLocal()
	if !ok && in.job.WarmupArguments != "" {
		st.Phase = "warm-up"
		return
	}
	st.Phase = "measuring"
	if ok {
		st.Elapsed = now.Sub(ms)
	}
	if d, ok := seconds(in.job.Variables["duration"]); ok && d > st.Elapsed {
		st.Remaining = d - st.Elapsed
	}
}

// refresh reads the instances' measurements at most every liveEvery.
func (l *live) refresh(ctx context.Context, ins []*instance, now time.Time) {
	if now.Sub(l.fetched) < liveEvery {
		return
	}
	l.fetched = now
	var server, load float64
	var haveServer, haveLoad bool
	cpu := map[string]float64{}
	var order []string
	for _, in := range ins {
		if in.id == "" || in.status.Skipped != "" || in.status.State != api.StateRunning || in.silent {
			continue // a silent agent is left to pollWait, which bounds how long it may be
		}
		mctx, cancel := context.WithTimeout(ctx, l.c.readTimeout(in))
		m, err := in.client.Measurements(mctx, in.id)
		cancel()
		if err != nil {
			l.c.log.Debug("live measurements", "service", in.service, "agent", in.url, "err", err)
			continue
		}
		latest := latestSamples(m.Measurements, now.Add(in.clockOffset).Add(-liveFresh))
		if v, ok := latest[serverRPS]; ok {
			server, haveServer = server+v, true
		}
		if v, ok := latest[loadRPS]; ok && in.job.WaitForExit {
			load, haveLoad = load+v, true
		}
		if v, ok := latest[measure.CPU]; ok {
			if _, seen := cpu[in.service]; !seen {
				order = append(order, in.service)
			}
			cpu[in.service] = max(cpu[in.service], v)
		}
	}
	switch {
	case haveServer:
		l.rps = server
	case haveLoad:
		l.rps = load
	default:
		l.rps = math.NaN()
	}
	l.cpu = l.cpu[:0]
	for _, s := range order {
		l.cpu = append(l.cpu, progress.ServiceValue{Service: s, Value: cpu[s]})
	}
}

// latestSamples returns the last value of each measurement sampled after since (agent clock).
func latestSamples(ms []api.Measurement, since time.Time) map[string]float64 {
	out := map[string]float64{}
	for _, m := range ms {
		if m.Timestamp.After(since) {
			out[m.Name] = m.Value
		}
	}
	return out
}

// seconds reads a duration variable given in seconds (15, "15", 15.5).
func seconds(v any) (time.Duration, bool) {
	if v == nil {
		return 0, false
	}
	f, err := strconv.ParseFloat(fmt.Sprint(v), 64)
	if err != nil || f <= 0 {
		return 0, false
	}
	return time.Duration(f * float64(time.Second)), true
}
