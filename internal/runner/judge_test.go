package runner

import (
	"errors"
	"strings"
	"testing"

	"github.com/crankshaft/crankshaft/internal/results"
	"github.com/crankshaft/crankshaft/internal/testutil/boxrun"
)

// scriptedPlan prepares a scenario of an application and a load whose threshold names a figure of
// crank's scripts (boxrun.Scripts: script/cpu/peak < 30), its file ending with scripts.
func scriptedPlan(t *testing.T, scripts ...string) *Prepared {
	t.Helper()
	cfg := boxrun.ScriptedScenario(t, "< 30", scripts...)
	p, err := Prepare(t.Context(), Env{}, Plan{Source: Source{Configs: []string{cfg}, Scenario: "scripted"},
		Verdict: Verdict{MaxErrorRate: DefaultMaxErrorRate}})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// boxResult is a quiet run on the 2-core box: the load at 20 % (its benchmarks/cpu/raw 40), the
// application at 30 % (60).
func boxResult() *results.Result {
	return &results.Result{JobResults: results.JobResults{Jobs: map[string]*results.JobResult{
		"load": boxrun.Job(20, 55, boxrun.Load(1000, false)), "application": boxrun.Job(30, 55, map[string]float64{}),
	}}}
}

// TestJudgeRunsTheScripts: a measurement judged outside Execute (Judge) gets crank's scripts as a
// run does, once, before its thresholds, which may name what they make; a merged measurement
// (JudgeMerged) does not run them again, its runs having had them (Script).
func TestJudgeRunsTheScripts(t *testing.T) {
	p := scriptedPlan(t)
	res := boxResult()
	code, err := p.Judge(res, "not probed here")
	if err != nil || code != ExitThresholds {
		t.Fatalf("judged %d, %v: want the thresholds' exit %d and no error", code, err, ExitThresholds)
	}
	load := res.JobResults.Jobs["load"].Results
	if load["script/cpu/peak"] != 40 || load["script/runs"] != 1 || res.JobResults.Jobs["application"].Results["script/cpu/peak"] != 60 {
		t.Errorf("load %v, application %v: want the peaks 40 and 60, the scripts run once", load, res.JobResults.Jobs["application"].Results)
	}
	if len(res.Thresholds) != 1 || res.Thresholds[0].Value != 40 || res.Thresholds[0].Pass {
		t.Errorf("thresholds %+v: want script/cpu/peak 40 < 30 crossed", res.Thresholds)
	}
	if len(res.JobResults.Diagnostics) == 0 {
		t.Error("no diagnosis")
	}
	merged := boxResult()
	if err := p.Script(merged, "merged"); err != nil || merged.JobResults.Jobs["load"].Results["script/runs"] != 1 || len(merged.JobResults.Diagnostics) == 0 {
		t.Fatalf("Script: %v, load %v, diagnosis %v: want the scripts run once on a diagnosed run", err, merged.JobResults.Jobs["load"].Results, merged.JobResults.Diagnostics)
	}
	if code := p.JudgeMerged(merged, "merged"); code != ExitThresholds || merged.JobResults.Jobs["load"].Results["script/runs"] != 1 {
		t.Errorf("JudgeMerged %d, load %v: want the thresholds judged, the scripts not run again", code, merged.JobResults.Jobs["load"].Results)
	}
}

// TestJudgeScriptError: a script that throws fails the judged measurement as it fails a run: exit
// 1, its message the last of the failures (after the thresholds'), and the error is ErrScripts.
func TestJudgeScriptError(t *testing.T) {
	p := scriptedPlan(t, boxrun.Scripts, "onResultsCreating:\n  - throw 'no figures today'\n")
	res := boxResult()
	code, err := p.Judge(res, "")
	if !errors.Is(err, ErrScripts) || code != ExitFailed || res.ReturnCode != ExitFailed {
		t.Fatalf("judged %d (returnCode %d), %v: want ExitFailed and ErrScripts", code, res.ReturnCode, err)
	}
	msg := err.Error()
	if !strings.Contains(msg, "onResultsCreating") || !strings.HasSuffix(msg, "no figures today") {
		t.Errorf("error %q: want the script's place and its message", msg)
	}
	if len(res.Failures) == 0 || res.Failures[len(res.Failures)-1] != msg {
		t.Errorf("failures %q: want the script's error last", res.Failures)
	}
	if _, made := res.JobResults.Jobs["load"].Results["script/cpu/peak"]; made {
		t.Error("the results: definitions ran after onResultsCreating threw")
	}
}
