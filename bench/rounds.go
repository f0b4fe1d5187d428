package main

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"time"

	rnd "github.com/crankshaft/crankshaft/internal/rounds"
)

// trial is one subject of a comparison: a client against a server path in one mode.
type trial struct {
	Subject  string
	Mode     string // the row's mode; by default the pipelining's
	Pipeline int
	// Connections overrides the bench's --connections when > 0.
	Connections int
	Server      *server
	Path        string
	Client      client
}

func (t trial) mode() string {
	if t.Mode != "" {
		return t.Mode
	}
	return modeName(t.Pipeline)
}

// argv is the trial's pinned client command line for a run of seconds.
func (e *env) argv(t trial, seconds int) []string {
	conns := e.cfg.connections
	if t.Connections > 0 {
		conns = t.Connections
	}
	args, _ := t.Client.Args(t.Server.URL(t.Path), t.Pipeline, seconds, conns)
	return e.pinned(cpuClient, args...)
}

// runRounds runs the trials in rounds of the bench run e.run; odd rounds in the given order, even
// rounds in the reverse order (A B B A ...), so that a drift of the machine's load weighs alike on
// all. Each distinct server path is warmed up first by a one-second unmeasured run. Which trials a
// round runs, and when the run's rounds end, is nextTrials': the rounds asked for, more while rows
// lack undisturbed rounds in this run, then more of the rows not yet known within --precision
// over every run so far (the comparison's earlier samples, kept in e.pooled under name).
func (e *env) runRounds(ctx context.Context, name, side string, trials []trial, rows []row) []sample {
	warmed := map[string]bool{}
	for _, t := range trials {
		if k := t.Server.URL(t.Path); !warmed[k] && ctx.Err() == nil {
			warmed[k] = true
			if s := e.measure(ctx, 0, t, 1); s.Err != "" {
				e.log.Warn("warm-up failed", "comparison", name, "subject", t.Subject, "err", s.Err)
			}
		}
	}
	var out []sample
	for r := 1; ctx.Err() == nil; r++ {
		todo := e.nextTrials(r, trials, rows, side, e.pooled[name], out)
		if len(todo) == 0 {
			break
		}
		if r > e.cfg.rounds && len(todo) < len(trials) {
			e.log.Info(name+": a round for precision", "run", e.run, "round", r, "subjects", len(todo))
		}
		for _, t := range rnd.Ordered(todo, r-1) { // as given, then reversed: A B B A
			s := e.measure(ctx, r, t, e.cfg.seconds)
			e.log.Info(name, "run", e.run, "round", r, "subject", s.Subject, "mode", s.Mode, "requests", s.Requests,
				"server_us", round2(s.ServerUS), "client_us", round2(s.ClientUS),
				"kernel_percent", fmt.Sprintf("%.0f,%.0f", s.ServerSysShare(), s.ClientSysShare()),
				"others_percent", fmt.Sprintf("%.0f,%.0f", s.OthersServer, s.OthersClient), "err", s.Err)
			out = append(out, s)
		}
	}
	e.pooled[name] = append(e.pooled[name], out...)
	return out
}

func round2(x float64) float64 { return float64(int64(x*100+0.5)) / 100 }

// measure runs the trial's client once and divides each side's CPU by the requests it counted.
func (e *env) measure(ctx context.Context, round int, t trial, seconds int) sample {
	s := sample{Run: e.run, Round: round, Subject: t.Subject, Mode: t.mode(), OthersServer: math.NaN(), OthersClient: math.NaN()}
	fail := func(err error) sample { s.Err = err.Error(); return s }
	before, err := treeTicks(t.Server.p.Pid())
	if err != nil {
		return fail(fmt.Errorf("server %s: %w", t.Server.Name, err))
	}
	cpu0, err0 := readCPUTimes(cpuServer)
	cpu1, err1 := readCPUTimes(cpuClient)
	var out bytes.Buffer
	start := time.Now()
	p, err := e.procs.start(e.argv(t, seconds), nil, &out)
	if err != nil {
		return fail(err)
	}
	limit := time.NewTimer(time.Duration(seconds+20) * time.Second)
	defer limit.Stop()
	select {
	case <-p.done:
	case <-ctx.Done():
		e.procs.stop(p, time.Second)
		return fail(ctx.Err())
	case <-limit.C:
		e.procs.stop(p, time.Second)
		return fail(fmt.Errorf("%s did not finish within %ds", t.Client.Name, seconds+20))
	}
	s.Seconds = time.Since(start).Seconds()
	after, err := treeTicks(t.Server.p.Pid())
	if err != nil {
		return fail(fmt.Errorf("server %s: %w", t.Server.Name, err))
	}
	s.ServerCPU = after.Since(before)
	if end, err := readCPUTimes(cpuServer); err == nil && err0 == nil {
		s.OthersServer = othersShare(cpu0, end, s.ServerCPU.Total())
	}
	if end, err := readCPUTimes(cpuClient); err == nil && err1 == nil && p.exitErr == nil {
		s.OthersClient = othersShare(cpu1, end, p.exitCPU.Total())
	}
	if p.exitErr != nil {
		return fail(fmt.Errorf("%s: CPU at exit: %w", t.Client.Name, p.exitErr))
	}
	s.ClientCPU = p.exitCPU
	if p.waitErr != nil {
		return fail(fmt.Errorf("%s: %w: %s", t.Client.Name, p.waitErr, tail(out.Bytes())))
	}
	s.Requests, err = t.Client.Parse(out.Bytes())
	if err != nil {
		return fail(fmt.Errorf("%s: %w", t.Client.Name, err))
	}
	if s.Requests > 0 {
		s.ServerUS = ticksToUS(s.ServerCPU.Total()) / float64(s.Requests)
		s.ClientUS = ticksToUS(s.ClientCPU.Total()) / float64(s.Requests)
	}
	return s
}

// othersShare is the percentage of a CPU's time between two reads that was busy but not charged
// to the server (which used serverTicks of it).
func othersShare(before, after cpuTimes, serverTicks uint64) float64 {
	busy := float64(after.Busy - before.Busy)
	total := busy + float64(after.Idle-before.Idle)
	if total <= 0 {
		return math.NaN()
	}
	return max(0, busy-float64(serverTicks)) / total * 100
}

func ticksToUS(t uint64) float64 { return float64(t) * 1e6 / ticksPerSecond }
