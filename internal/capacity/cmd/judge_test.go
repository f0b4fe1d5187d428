package cmd

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/capacity"
	"github.com/crankshaft/crankshaft/internal/controller"
	"github.com/crankshaft/crankshaft/internal/measure"
	"github.com/crankshaft/crankshaft/internal/results"
	"github.com/crankshaft/crankshaft/internal/runner"
	"github.com/crankshaft/crankshaft/internal/testutil/boxrun"
	"github.com/crankshaft/crankshaft/internal/threshold"
)

// stepped is a stepper whose every step measures jobs.
type stepped map[string]*results.JobResult

func (s stepped) Step(context.Context, []controller.Service) (map[string]*results.JobResult, error) {
	return s, nil
}

// judged is the step crank capacity makes of jobs measured at the rate asked: the step's run
// prepared, measured (here: jobs) and judged by internal/runner, then capacity's rules.
func judged(t *testing.T, asked float64, jobs map[string]*results.JobResult, loads map[string]bool, slo threshold.Threshold) capacity.Step {
	t.Helper()
	res, err := stepOf(t, asked, jobs, loads, slo)
	if err != nil {
		t.Fatal(err)
	}
	return judge(asked, res, loads)
}

// stepOf is judged's step as internal/runner returns it (Prepared.Step), its configuration ending
// with crank's root scripts when some are given (boxrun.AddScripts).
func stepOf(t *testing.T, asked float64, jobs map[string]*results.JobResult, loads map[string]bool, slo threshold.Threshold, scripts ...string) (*results.Result, error) {
	t.Helper()
	cfg := filepath.Join(t.TempDir(), "steps.yml")
	yml := `
jobs:
  server:
    executable: /bin/sh
    arguments: '-c "exec sleep 120"'
  rated:
    executable: /bin/sh
    arguments: '-c "echo {{rate}}"'
    waitForExit: true
scenarios:
  steps:
    application:
      job: server
    load:
      job: rated
`
	if err := os.WriteFile(cfg, []byte(yml), 0o644); err != nil {
		t.Fatal(err)
	}
	if len(scripts) > 0 {
		boxrun.AddScripts(t, cfg, scripts...)
	}
	src := runner.Source{Configs: []string{cfg}, Scenario: "steps"}
	s := &search{c: &runner.Command{Plan: runner.Plan{Source: src, Verdict: runner.Verdict{MaxErrorRate: runner.DefaultMaxErrorRate}}},
		src: src, slos: []threshold.Threshold{slo}, settings: capacity.DefaultSettings()}
	p, err := s.step(t.Context(), asked)
	if err != nil {
		t.Fatal(err)
	}
	for name := range loads {
		if !p.Services()[1].Job.WaitForExit || p.Services()[1].Name != name {
			t.Fatalf("services %+v: want %s the load", p.Services(), name)
		}
	}
	return p.Step(t.Context(), stepped(jobs))
}

// TestJudge: a step passes when every SLO holds and the generator kept up; the figures come from
// the load's and the server's results.
func TestJudge(t *testing.T) {
	jobs := map[string]*results.JobResult{
		"load": {Results: map[string]float64{measure.RPS: 940, measure.Latency99: 12, measure.ErrorRate: 0}},
		"application": {Results: map[string]float64{measure.CPU: 60, measure.LockContention: 800},
			Measurements: [][]api.Measurement{{{Name: measure.CPU, Value: 40}, {Name: measure.CPU, Value: 60}}}},
	}
	loads := map[string]bool{"load": true}
	slo, _ := threshold.Parse("load:http/latency/99<20")
	s := judged(t, 1000, jobs, loads, slo)
	if s.Pass || !s.FellBehind || s.ServerCPU != 50 || s.LockContention != 800 || len(s.Failed) != 1 {
		t.Errorf("940 of 1000: %+v, want failed as fallen behind only, server CPU the mean 50", s)
	}
	if s := judged(t, 950, jobs, loads, slo); !s.Pass {
		t.Errorf("940 of 950 within the SLO: %+v, want a pass", s)
	}
	slo, _ = threshold.Parse("load:http/latency/99<10")
	if s := judged(t, 950, jobs, loads, slo); s.Pass || len(s.Failed) != 1 {
		t.Errorf("p99 12 against < 10: %+v", s)
	}
	if d := capacity.Drain(capacity.Step{Asked: 1000, Achieved: 500, FellBehind: true, Latency99: 100}, 4); d.Round(time.Millisecond) != 4100*time.Millisecond {
		t.Errorf("drain %s, want 4 s of backlog plus the p99", d)
	}
	if d := capacity.Drain(capacity.Step{Asked: 100, Achieved: 100, Latency99: 5}, 4); d != 0 {
		t.Errorf("drain after a clean step %s", d)
	}
}

// TestJudgeFellBehindAndBusy: a step that failed only because the generator fell behind says so
// with what it completed of the rate asked; a step on a busy machine (machine-busy's rule) is
// disturbed, with the share used outside the run.
func TestJudgeFellBehindAndBusy(t *testing.T) {
	job := boxrun.Job // the 2-core machine "box"
	slo, _ := threshold.Parse("load:http/latency/99<50")
	loads := map[string]bool{"load": true}
	quiet := map[string]*results.JobResult{
		"load":        job(20, 55, map[string]float64{measure.RPS: 372, measure.Requests: 1488, measure.Latency99: 41}),
		"application": job(30, 55, map[string]float64{}),
	}
	s := judged(t, 1750, quiet, loads, slo)
	if s.Pass || s.Disturbed() || s.Outcome() != "FAIL (fell behind only: completed 372 of 1,750 req/s asked)" {
		t.Errorf("372 of 1,750 within the SLO: %q (%+v)", s.Outcome(), s)
	}
	if !strings.Contains(s.Failed[0], "the generator fell behind: completed 372 of 1,750 req/s asked (under 95 %); its latency counts only the requests it sent") {
		t.Errorf("failed %q", s.Failed)
	}
	busy := map[string]*results.JobResult{
		"load":        job(20, 98, map[string]float64{measure.RPS: 1000, measure.Requests: 4000, measure.Latency99: 80}),
		"application": job(30, 98, map[string]float64{}),
	}
	s = judged(t, 1000, busy, loads, slo)
	if !s.Busy || s.Outside != 48 || !s.Disturbed() || s.Outcome() != "FAIL (machine busy: 48 % of it used outside the run)" {
		t.Errorf("98 %% busy with the run's 50 %%: %q (%+v)", s.Outcome(), s)
	}
}

// TestStepRunsTheScripts: a step's results get crank's scripts as a run's do, once, before its
// SLOs, so an SLO may name a figure they make and fail the step on it; a script that throws fails
// the step with its error (runner.ErrScripts), which stops the search.
func TestStepRunsTheScripts(t *testing.T) {
	jobs := func() map[string]*results.JobResult {
		return map[string]*results.JobResult{ // the load at 20 % of the box: its benchmarks/cpu/raw 40
			"load":        boxrun.Job(20, 55, map[string]float64{measure.RPS: 1000, measure.Requests: 4000, measure.Latency99: 12}),
			"application": boxrun.Job(30, 55, map[string]float64{}),
		}
	}
	loads := map[string]bool{"load": true}
	slo, _ := threshold.Parse("load:script/cpu/peak<30")
	res, err := stepOf(t, 1000, jobs(), loads, slo, boxrun.Scripts)
	if err != nil {
		t.Fatal(err)
	}
	if r := res.JobResults.Jobs["load"].Results; r["script/cpu/peak"] != 40 || r["script/runs"] != 1 {
		t.Errorf("load's results %v: want the scripts' peak 40, made once", r)
	}
	s := judge(1000, res, loads)
	if s.Pass || len(s.Thresholds) != 1 || s.Thresholds[0].Value != 40 || s.Thresholds[0].Pass {
		t.Errorf("step %+v: want failed on script/cpu/peak 40 < 30", s)
	}
	res, err = stepOf(t, 1000, jobs(), loads, slo, boxrun.Scripts, "onResultsCreating:\n  - throw 'no figures today'\n")
	if !errors.Is(err, runner.ErrScripts) || res != nil || !strings.HasSuffix(err.Error(), "no figures today") {
		t.Errorf("a throwing script: %v, %v; want no step and ErrScripts with its message", res, err)
	}
}
