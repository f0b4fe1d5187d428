package bisect

import (
	"errors"
	"strings"
	"testing"

	"github.com/crankshaft/crankshaft/internal/measure"
	"github.com/crankshaft/crankshaft/internal/results"
	"github.com/crankshaft/crankshaft/internal/runner"
	"github.com/crankshaft/crankshaft/internal/testutil/boxrun"
	"github.com/crankshaft/crankshaft/internal/threshold"
)

// scriptedBench is judgedBench whose configuration ends with crank's root scripts (boxrun.Scripts
// unless others are given) and whose --threshold names the figure they make: load's
// script/cpu/peak < 30.
func scriptedBench(t *testing.T, ex runner.Executor, scripts ...string) *Bench {
	t.Helper()
	b, _ := judgedBench(t, ex)
	boxrun.AddScripts(t, b.c.Plan.Source.Configs[0], scripts...)
	peak, err := threshold.Parse("load:script/cpu/peak<30")
	if err != nil {
		t.Fatal(err)
	}
	b.c.Plan.Verdict.Thresholds = []threshold.Threshold{peak}
	return b
}

// peakCheck is the judged result's check of script/cpu/peak, and whether it has one.
func peakCheck(res *results.Result) (results.ThresholdCheck, bool) {
	for _, c := range res.Thresholds {
		if c.Metric == "script/cpu/peak" {
			return c, true
		}
	}
	return results.ThresholdCheck{}, false
}

// TestIterationRunsTheScripts: an iteration of a commit gets crank's scripts on its own results,
// once, before its thresholds, as a run does: the figure they make is among its results, and
// --threshold naming it is judged.
func TestIterationRunsTheScripts(t *testing.T) {
	ex := &scripted{states: map[string][]machineState{"1111111111aa": {quiet}}, runs: map[string]int{}}
	b := scriptedBench(t, ex)
	cr, err := b.Prepare(t.Context(), commitOf("1111111111aa"))
	if err != nil {
		t.Fatal(err)
	}
	if err := b.once(t.Context(), cr); err != nil {
		t.Fatal(err)
	}
	res := cr.Result()
	if r := res.JobResults.Jobs["load"].Results; r["script/cpu/peak"] != 40 || r["script/runs"] != 1 || r[measure.RPS] != 1000 {
		t.Errorf("load's results %v: want the scripts' peak 40 (the load's 20 %% of the box), made once", r)
	}
	if c, ok := peakCheck(res); !ok || c.Value != 40 || c.Pass {
		t.Errorf("thresholds %+v: want script/cpu/peak 40 < 30 judged, crossed", res.Thresholds)
	}
}

// TestSideBySidePartsRunTheScripts: side by side, each commit's part of the round gets the
// scripts on its own services (its copies under the scenario's names), once, and its thresholds
// judge what they make.
func TestSideBySidePartsRunTheScripts(t *testing.T) {
	b := scriptedBench(t, &sideRounds{states: []machineState{quiet}})
	g, h := sideBySidePair(t, b)
	if failed, err := b.Round(t.Context(), 0, g, h); err != nil || failed != nil {
		t.Fatalf("round: %v (%v)", err, failed)
	}
	for _, cr := range []*CommitRun{g, h} {
		res := cr.Result()
		app, load := res.JobResults.Jobs["application"].Results, res.JobResults.Jobs["load"].Results
		if load["script/cpu/peak"] != 10 || load["script/runs"] != 1 || app["script/cpu/peak"] != 20 {
			t.Errorf("%s: load %v, application %v: want the peaks 10 and 20 of its own copies, the scripts run once", cr.Commit().Short(), load, app)
		}
		if c, ok := peakCheck(res); !ok || c.Value != 10 || !c.Pass {
			t.Errorf("%s: thresholds %+v: want script/cpu/peak 10 < 30 judged, passed", cr.Commit().Short(), res.Thresholds)
		}
	}
}

// TestIterationScriptError: a script that throws fails the iteration with runner.ErrScripts,
// naming the commit, and nothing is kept; the search stops on it rather than skipping the commit
// (its scripts are the scenario's: every commit's would fail).
func TestIterationScriptError(t *testing.T) {
	ex := &scripted{states: map[string][]machineState{"1111111111aa": {quiet}}, runs: map[string]int{}}
	b := scriptedBench(t, ex, boxrun.Scripts, "onResultsCreating:\n  - throw 'no figures today'\n")
	cr, err := b.Prepare(t.Context(), commitOf("1111111111aa"))
	if err != nil {
		t.Fatal(err)
	}
	err = b.once(t.Context(), cr)
	if !errors.Is(err, runner.ErrScripts) || cr.Result() != nil || ex.runs["1111111111aa"] != 1 {
		t.Fatalf("a throwing script: %v, kept %v, %d runs: want ErrScripts, nothing kept, not run again", err, cr.Result(), ex.runs["1111111111aa"])
	}
	if msg := err.Error(); !strings.HasPrefix(msg, "commit 1111111111: ") || !strings.HasSuffix(msg, "no figures today") {
		t.Errorf("error %q: want the commit named and the script's message", msg)
	}
}

// TestStepStopsOnAScriptError: a commit of a step whose results the scripts throw on is not
// skipped as a commit that does not run is: the search stops with the scripts' error, naming it.
// (Here the script throws on a load with bad responses: only the middle commit's.)
func TestStepStopsOnAScriptError(t *testing.T) {
	good, bad, mid := commitOf("1111111111aa"), commitOf("3333333333cc"), commitOf("2222222222bb")
	ex := &scripted{states: map[string][]machineState{good.SHA: {quiet}, bad.SHA: {quiet}, mid.SHA: {failing}}, runs: map[string]int{}}
	b := scriptedBench(t, ex, `results:
  - {name: script/cpu/peak, measurement: benchmarks/cpu/raw, aggregate: max}
onResultsCreated:
  - if (benchmarks.jobs.load.results["`+measure.BadResponses+`"] > 0) throw "bad responses"
`)
	bs := &bisector{Bench: b, f: Flags{Metric: b.want}, good: good, bad: bad, measured: map[string][]ProfiledRun{}}
	var err error
	if bs.goodRun, err = b.Prepare(t.Context(), good); err == nil {
		bs.badRun, err = b.Prepare(t.Context(), bad)
	}
	if err != nil {
		t.Fatal(err)
	}
	s, err := bs.judge(t.Context(), Probe{N: 1, About: 1, Commit: mid})
	if !errors.Is(err, runner.ErrScripts) || !strings.HasPrefix(err.Error(), "commit 2222222222: ") || s.Verdict != "" {
		t.Errorf("a step whose scripts throw: %+v, %v; want the search stopped by ErrScripts naming the commit, no skip", s, err)
	}
}
