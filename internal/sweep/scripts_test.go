package sweep

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/crankshaft/crankshaft/internal/controller"
	"github.com/crankshaft/crankshaft/internal/results"
	"github.com/crankshaft/crankshaft/internal/runner"
	"github.com/crankshaft/crankshaft/internal/testutil/boxrun"
)

// boxRuns is an executor whose n-th run (from 1) measures the load at 10·n % of the 2-core box
// (its benchmarks/cpu/raw 20·n) and the application at 30 %.
type boxRuns struct{ n int }

func (b *boxRuns) Execute(context.Context, controller.Run) (*results.Result, error) {
	b.n++
	return &results.Result{JobResults: results.JobResults{Jobs: map[string]*results.JobResult{
		"load": boxrun.Job(10*float64(b.n), 55, boxrun.Load(1000, false)), "application": boxrun.Job(30, 55, map[string]float64{}),
	}}}, nil
}

// scriptedSweep runs a sweep of two variants, two runs each, of a scenario whose load has a
// threshold on a figure crank's scripts make (boxrun.Scripts: script/cpu/peak < 60), its file
// ending with scripts, through the command's own options on boxRuns.
func scriptedSweep(t *testing.T, scripts ...string) (*File, error) {
	t.Helper()
	cfg := boxrun.ScriptedScenario(t, "< 60", scripts...)
	c := &runner.Command{Env: runner.Env{Stderr: &bytes.Buffer{}}, JSON: filepath.Join(t.TempDir(), "sweep.json"),
		Plan: runner.Plan{Source: runner.Source{Configs: []string{cfg}, Scenario: "scripted"}, Verdict: runner.Verdict{MaxErrorRate: runner.DefaultMaxErrorRate}}}
	cmd := &command{c: c, iterations: 2}
	f, err := NewFile("scripted", nil, axes(t, "connections=16,32"), "", 2)
	if err != nil {
		t.Fatal(err)
	}
	prepared, services, err := cmd.prepare(t.Context(), f)
	if err != nil {
		t.Fatal(err)
	}
	return f, Run(t.Context(), f, cmd.options(&boxRuns{}, prepared, services))
}

// TestSweepRunsTheScriptsOnEachRun: each run of a variant gets crank's scripts on its own results,
// once, before it is merged: the script's figure is each run's, averaged as the others are, and
// the threshold naming it is judged on the variant's mean.
func TestSweepRunsTheScriptsOnEachRun(t *testing.T) {
	// The scripts see each run's diagnosis, as a run's do: the count of its verdicts.
	f, err := scriptedSweep(t, boxrun.Scripts+`  - |
    load["script/diagnoses"] = (benchmarks.diagnostics || []).length;
`)
	if err != nil {
		t.Fatal(err)
	}
	// ABBA: the first variant's runs are the 1st and the 4th (peaks 20 and 80), the second's the
	// 2nd and the 3rd (40 and 60).
	for i, peaks := range [][2]float64{{20, 80}, {40, 60}} {
		res := f.Variants[i].Result
		load := res.JobResults.Jobs["load"]
		if len(load.Iterations) != 2 || load.Iterations[0]["script/cpu/peak"] != peaks[0] || load.Iterations[1]["script/cpu/peak"] != peaks[1] {
			t.Errorf("variant %d: iterations %v, want the peaks %v", i, load.Iterations, peaks)
		}
		for j, it := range load.Iterations {
			if it["script/diagnoses"] < 1 {
				t.Errorf("variant %d, run %d: the scripts saw %v verdicts, want the run's diagnosis", i, j+1, it["script/diagnoses"])
			}
		}
		if load.Results["script/cpu/peak"] != 50 || load.Results["script/runs"] != 1 {
			t.Errorf("variant %d: results %v, want the peak's mean 50 and the scripts run once a run", i, load.Results)
		}
		if len(res.Thresholds) != 1 || res.Thresholds[0].Value != 50 || !res.Thresholds[0].Pass || res.ReturnCode != runner.ExitOK {
			t.Errorf("variant %d: thresholds %+v, return code %d: want script/cpu/peak 50 < 60 judged, passed", i, res.Thresholds, res.ReturnCode)
		}
	}
}

// TestSweepScriptError: a script that throws stops the sweep as a failed run does, naming the
// variant; the run is not recorded.
func TestSweepScriptError(t *testing.T) {
	f, err := scriptedSweep(t, boxrun.Scripts, "onResultsCreating:\n  - throw 'no figures today'\n")
	if !errors.Is(err, runner.ErrScripts) || f.Done != 0 || f.Variants[0].Result != nil {
		t.Fatalf("sweep: %v, %d runs done: want ErrScripts and nothing recorded", err, f.Done)
	}
	if want := "variant connections=16: "; !strings.HasPrefix(err.Error(), want) {
		t.Errorf("error %q: want it to name the variant", err)
	}
}
