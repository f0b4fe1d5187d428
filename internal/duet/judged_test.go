package duet

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/controller"
	"github.com/crankshaft/crankshaft/internal/diagnose"
	"github.com/crankshaft/crankshaft/internal/measure"
	"github.com/crankshaft/crankshaft/internal/results"
	"github.com/crankshaft/crankshaft/internal/runner"
	"github.com/crankshaft/crankshaft/internal/testutil"
	"github.com/crankshaft/crankshaft/internal/testutil/boxrun"
	"github.com/crankshaft/crankshaft/internal/threshold"
)

// sides is an executor measuring each side (the application's source.branchOrCommit) on a quiet
// 2-core machine, its load at rps requests/s; a side in failing has half its requests failed.
type sides struct {
	rps     map[string]float64
	failing map[string]bool
}

func (s sides) Execute(_ context.Context, r controller.Run) (*results.Result, error) {
	sha := ""
	for _, svc := range r.Services {
		if svc.Job.Source != nil {
			sha = svc.Job.Source.BranchOrCommit
		}
	}
	return &results.Result{JobResults: results.JobResults{Jobs: map[string]*results.JobResult{
		"load": boxrun.Job(20, 55, boxrun.Load(s.rps[sha], s.failing[sha])), "application": boxrun.Job(30, 55, map[string]float64{}),
	}}}, nil
}

// gateOn is a gate of two commits of a repository the agent clones, interleaved, judged on the
// load's requests/s, measured by ex; its JSON goes to stdout, its lines to stderr.
func gateOn(t *testing.T, ex runner.Executor) (*duel, []string, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	repo, commits := testutil.GitRepo(t, "echo 1", "echo 2")
	cfg := boxrun.Scenario(t, repo)
	var stdout, stderr bytes.Buffer
	c := &runner.Command{Env: runner.Env{Stdout: &stdout, Stderr: &stderr}, Getenv: func(string) string { return "" }, JSON: "-",
		Plan: runner.Plan{Source: runner.Source{Configs: []string{cfg}, Scenario: "app"}, Precision: 0.02,
			Verdict: runner.Verdict{MaxErrorRate: runner.DefaultMaxErrorRate}}}
	d, err := start(t.Context(), c, Flags{Base: commits[0], Head: commits[1], Threshold: 0.01, Alpha: 0.05,
		Metric: threshold.Threshold{Service: "load", Metric: measure.RPS}, MaxRounds: 6, Limit: time.Minute, Interleaved: true})
	if err != nil {
		t.Fatal(err)
	}
	d.bench.Use(ex)
	return d, commits, &stdout, &stderr
}

// A head whose round is error-bound is a side that failed: exit 1, the message naming the head's
// commit and the diagnosis, as when a side does not build.
func TestErrorBoundSideFailsTheGate(t *testing.T) {
	var ex sides
	d, commits, _, stderr := gateOn(t, &ex)
	ex = sides{rps: map[string]float64{commits[0]: 1000, commits[1]: 1000}, failing: map[string]bool{commits[1]: true}}
	if code := d.run(t.Context()); code != runner.ExitFailed {
		t.Errorf("exit %d, want %d", code, runner.ExitFailed)
	}
	head := commits[1][:10]
	want := "crank compare: round 1: the head " + head + ": commit " + head + " cannot be judged: its measurement's diagnosis is error-bound: 2,000 of 4,000 requests failed"
	if !strings.Contains(stderr.String(), want) {
		t.Errorf("stderr %q\nwant it to say %q", stderr.String(), want)
	}
}

// Each side's latest round carries internal/runner's judgement into the gate's JSON and text: its
// diagnosis (with why no probe ran) and the load's threshold.
func TestGateCarriesEachSidesJudgement(t *testing.T) {
	var ex sides
	d, commits, stdout, stderr := gateOn(t, &ex)
	ex = sides{rps: map[string]float64{commits[0]: 1000, commits[1]: 1000}}
	if code := d.run(t.Context()); code != runner.ExitOK {
		t.Fatalf("exit %d, want 0 (identical sides): %s", code, stderr)
	}
	var doc struct{ Compare Summary }
	if err := json.Unmarshal(stdout.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	for side, j := range map[string]Judged{"base": doc.Compare.BaseJudged, "head": doc.Compare.HeadJudged} {
		if len(j.Diagnosis) != 1 || j.Diagnosis[0].Kind != diagnose.Underloaded || !strings.Contains(j.Diagnosis[0].Message, "not probed") {
			t.Errorf("%s: diagnosis %+v, want underloaded, saying why it was not probed", side, j.Diagnosis)
		}
		if len(j.Thresholds) != 1 || j.Thresholds[0].Value != 12 || !j.Thresholds[0].Pass {
			t.Errorf("%s: thresholds %+v, want load's p99 12 < 50, passed", side, j.Thresholds)
		}
	}
	if !strings.Contains(stderr.String(), "  diagnosis of the latest round: base underloaded, head underloaded\n") {
		t.Errorf("text %q: want each side's verdict", stderr.String())
	}
}
