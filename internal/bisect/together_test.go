package bisect

import (
	"math"
	"strings"
	"testing"

	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/config"
	"github.com/crankshaft/crankshaft/internal/measure"
	"github.com/crankshaft/crankshaft/internal/results"
	"github.com/crankshaft/crankshaft/internal/runner"
)

func sideScenario(appPort, loadPort any) *config.Resolved {
	return &config.Resolved{Scenario: "app", Services: []config.Service{
		{Name: "db", Job: api.Job{Variables: map[string]any{"serverPort": 5432}}},
		{Name: "application", Job: api.Job{Variables: map[string]any{"serverPort": appPort}}},
		{Name: "load", Job: api.Job{WaitForExit: true, Variables: map[string]any{"serverPort": loadPort}}},
	}}
}

func TestSideBySideChecksTheScenario(t *testing.T) {
	tg, err := sideBySide(sideScenario(5000, 5000), "application", measure.CPUPerRequest, maxPositions)
	if err != nil || tg.port != 5000 || len(tg.loads) != 1 || tg.loads[0] != "load" || len(tg.open) != 1 {
		t.Fatalf("a scenario that can, its load with no rate: %+v, %v", tg, err)
	}
	fixed := sideScenario(5000, 5000)
	fixed.Services[2].Job.Variables["rate"] = 3000
	if tg, err := sideBySide(fixed, "application", measure.CPUPerRequest, maxPositions); err != nil || len(tg.open) != 0 {
		t.Errorf("a load at a fixed rate: open loads %v, %v", tg.open, err)
	}
	f := runner.Source{Variables: map[string]string{"connections": "8"}}
	f = tg.move(f, "application", 2)
	got := f.Overrides
	if len(got) != 2 || got[0] != [2]string{"application.variables.serverPort", "5002"} || got[1] != [2]string{"load.variables.serverPort", "5002"} {
		t.Errorf("position 2's overrides: %v", got)
	}
	if _, ok := f.Variables["serverPort"]; ok {
		t.Errorf("no serverPort on the command line: none added, got %v", f.Variables)
	}
	// A serverPort on the command line wins over the jobs' own: it is moved too, in a copy.
	given := map[string]string{"serverPort": "5000"}
	f = runner.Source{Variables: given}
	f = tg.move(f, "application", 1)
	if f.Variables["serverPort"] != "5001" || given["serverPort"] != "5000" {
		t.Errorf("--variable serverPort: moved to %q (want 5001), the flags' own %q (want 5000)", f.Variables["serverPort"], given["serverPort"])
	}
	for _, c := range []struct {
		r            *config.Resolved
		metric, want string
	}{
		{sideScenario(5000, 5000), measure.RPS, "each one's http/rps/mean is its share of it"},
		{sideScenario(nil, 5000), measure.CPUPerRequest, `service "application" needs a serverPort variable`},
		{sideScenario(5000, 8080), measure.CPUPerRequest, `load "load" aims at serverPort "8080", not service "application"'s 5000`},
		{&config.Resolved{Scenario: "x", Services: []config.Service{{Name: "application", Job: api.Job{Variables: map[string]any{"serverPort": "5000"}}}}},
			measure.CPUPerRequest, `scenario "x" has no load`},
	} {
		if _, err := sideBySide(c.r, "application", c.metric, maxPositions); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error saying %q", c.metric, err, c.want)
		}
	}
}

// A round of two commits side by side comes back as two runs under the scenario's names, each
// application's CPU a request over its own load's requests, the shared database as it was but a
// copy of its own, so that one part's scripts (Judge) never change another's.
func TestSplitCopyGivesEachCommitItsOwnRun(t *testing.T) {
	job := func(r map[string]float64) *results.JobResult { return &results.JobResult{Results: r} }
	res := &results.Result{Scenario: "app", JobResults: results.JobResults{Jobs: map[string]*results.JobResult{
		"db": {Results: map[string]float64{measure.CPURaw: 10, measure.CPUPerRequest: 1},
			Metadata: []api.Metadata{{Name: measure.CPURaw}}},
		"application#1": job(map[string]float64{measure.CPURaw: 30, measure.CPUPerRequest: 99}),
		"application#2": job(map[string]float64{measure.CPURaw: 45}),
		"load#1":        job(map[string]float64{measure.RPS: 3000}),
		"load#2":        job(map[string]float64{measure.RPS: 3000}),
	}}}
	for k, want := range []float64{100, 150} { // 30 % and 45 % of a core over 3,000 requests a second
		got := splitCopy(res, k).JobResults.Jobs
		if len(got) != 3 || got["db"].Results[measure.CPURaw] != 10 || got["load"].Results[measure.RPS] != 3000 {
			t.Fatalf("position %d: %v", k, got)
		}
		got["db"].Results["script/made"] = 1
		got["db"].Metadata[0].ShortDescription = "described by a script" // as a results: definition does
		db := res.JobResults.Jobs["db"]
		if _, shared := db.Results["script/made"]; shared || db.Metadata[0].ShortDescription != "" {
			t.Fatalf("position %d: the shared database's results are the round's, not the part's own", k)
		}
		if v := got["application"].Results[measure.CPUPerRequest]; math.Abs(v-want) > 1e-9 {
			t.Errorf("position %d: CPU per request %g µs, want %g", k, v, want)
		}
	}
	if v := res.JobResults.Jobs["application#1"].Results[measure.CPUPerRequest]; v != 99 {
		t.Errorf("the round's own result was changed: %g", v)
	}
}

// Unbiased results carry the adjusted figure in their iterations, their means and their
// precision; one after the other (no side), they are the results given.
func TestUnbiasedScalesTheJudgedFigure(t *testing.T) {
	mk := func(vs ...float64) *results.Result {
		jr := &results.JobResult{Results: map[string]float64{}}
		for _, v := range vs {
			jr.Iterations = append(jr.Iterations, map[string]float64{measure.CPUPerRequest: v, measure.RPS: 3000})
		}
		return &results.Result{JobResults: results.JobResults{Jobs: map[string]*results.JobResult{"application": jr}}}
	}
	// Position 1 costs 10 % more: commit 0 is there in rounds 1, 3 and 5, commit 1 in 0, 2 and 4.
	g, c := mk(100, 110, 100, 110, 100, 110), mk(110, 100, 110, 100, 110, 100)
	b := &bisector{Bench: &Bench{services: []string{"application"}, metric: measure.CPUPerRequest, c: &runner.Command{}}}
	if u, fitted := b.unbiased(g, c); u[0] != g || u[1] != c || fitted != 0 {
		t.Error("one after the other: the results should be those given, no degree of freedom spent")
	}
	b.side = &together{port: 5000, loads: []string{"load"}}
	u, fitted := b.unbiased(g, c)
	if fitted != 1 {
		t.Errorf("degrees of freedom spent on two positions: %d, want 1", fitted)
	}
	for i, r := range u {
		jr := r.JobResults.Jobs["application"]
		for k, it := range jr.Iterations {
			if v := it[measure.CPUPerRequest]; math.Abs(v-u[0].JobResults.Jobs["application"].Iterations[0][measure.CPUPerRequest]) > 1e-6 {
				t.Errorf("commit %d, round %d: %g, want every figure alike once position 1's cost is out", i, k, v)
			}
		}
		if r.Precision == nil || r.Precision.Iterations != 6 || math.Abs(r.Precision.Mean-jr.Results[measure.CPUPerRequest]) > 1e-9 {
			t.Errorf("commit %d: precision %+v, mean %g", i, r.Precision, jr.Results[measure.CPUPerRequest])
		}
	}
	if v := g.JobResults.Jobs["application"].Iterations[1][measure.CPUPerRequest]; v != 110 {
		t.Errorf("the measured result was changed: %g", v)
	}
}
