package bisect

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/controller"
	"github.com/crankshaft/crankshaft/internal/diagnose"
	"github.com/crankshaft/crankshaft/internal/measure"
	"github.com/crankshaft/crankshaft/internal/results"
	"github.com/crankshaft/crankshaft/internal/runner"
	"github.com/crankshaft/crankshaft/internal/testutil/boxrun"
	"github.com/crankshaft/crankshaft/internal/threshold"
)

// machineState is what a fake round measures: a quiet machine, a busy one (other work on it), or
// a load whose requests half failed.
type machineState int

const (
	quiet machineState = iota
	busy
	failing
	stolen // quiet, but the hypervisor took 20 % of the machine's time (steal)
)

// roundResult is a run of the scenario's application and load on a 2-core machine: the run's
// jobs use 50 % of it; the machine is 55 % busy when quiet (5 % outside the run), 98 % when busy
// (48 % outside: machine-busy).
func roundResult(state machineState) *results.Result {
	global := map[machineState]float64{quiet: 55, busy: 98, failing: 55}[state]
	return &results.Result{JobResults: results.JobResults{Jobs: map[string]*results.JobResult{
		"load": boxrun.Job(20, global, boxrun.Load(1000, state == failing)), "application": boxrun.Job(30, global, map[string]float64{}),
	}}}
}

// scripted is an executor whose n-th run (from 0) of a commit (the application's
// source.branchOrCommit) measures states[commit][n], the last state again after the list.
type scripted struct {
	states map[string][]machineState
	runs   map[string]int
}

func (s *scripted) Execute(_ context.Context, r controller.Run) (*results.Result, error) {
	sha := runCommit(r)
	states, ok := s.states[sha]
	if !ok {
		return nil, fmt.Errorf("no script for commit %q", sha)
	}
	n := min(s.runs[sha], len(states)-1)
	s.runs[sha]++
	return roundResult(states[n]), nil
}

// judgedBench is a bench of crank bisect over a scenario whose application's source is a
// repository the agent clones (each commit its source.branchOrCommit), measured by ex; stderr gets
// its lines. The load has a threshold, judged with every measure.
func judgedBench(t *testing.T, ex runner.Executor) (*Bench, *bytes.Buffer) {
	t.Helper()
	cfg := boxrun.Scenario(t, "https://example.com/app.git")
	var stderr bytes.Buffer
	src := runner.Source{Configs: []string{cfg}, Scenario: "app"}
	c := &runner.Command{Env: runner.Env{Stderr: &stderr}, Plan: runner.Plan{Source: src, Precision: 0.02,
		Run: controller.Run{Iterations: 1}, Verdict: runner.Verdict{MaxErrorRate: runner.DefaultMaxErrorRate}}}
	b := &Bench{c: c, who: "bisect", src: sourceOf{service: "application", remote: true}, ex: ex, positions: 1,
		want: threshold.Threshold{Service: "load", Metric: measure.RPS}}
	return b, &stderr
}

func commitOf(sha string) Commit { return Commit{SHA: sha, Subject: "change " + sha[:1]} }

// A measure on a busy machine (the judgement's machine-busy, not steal) is run again, once, and
// said; the measure kept is the quiet one, judged: its diagnosis and the load's threshold.
func TestBusyIterationRunAgain(t *testing.T) {
	ex := &scripted{states: map[string][]machineState{"1111111111aa": {busy, quiet}}, runs: map[string]int{}}
	b, stderr := judgedBench(t, ex)
	cr, err := b.Prepare(t.Context(), commitOf("1111111111aa"))
	if err != nil {
		t.Fatal(err)
	}
	if err := b.once(t.Context(), cr); err != nil {
		t.Fatal(err)
	}
	if ex.runs["1111111111aa"] != 2 || cr.Reruns() != 1 || len(cr.Result().JobResults.Jobs["load"].Iterations) != 1 {
		t.Errorf("runs %d, re-runs %d, iterations kept %d: want 2, 1, 1", ex.runs["1111111111aa"], cr.Reruns(), len(cr.Result().JobResults.Jobs["load"].Iterations))
	}
	want := "bisect: 1111111111: iteration run again: the machine was disturbed (machine busy: 48 % of it used outside the run)\n"
	if stderr.String() != want {
		t.Errorf("said %q, want %q", stderr.String(), want)
	}
	s := (&bisector{Bench: b}).step(cr.Commit(), cr.Result(), nil, nil)
	if len(s.Diagnosis) != 1 || s.Diagnosis[0].Kind != diagnose.Underloaded || !strings.Contains(s.Diagnosis[0].Message, noProbe) {
		t.Errorf("the step's diagnosis %+v: want the quiet measure's, underloaded, saying why it was not probed", s.Diagnosis)
	}
	if len(s.Thresholds) != 1 || s.Thresholds[0].Service != "load" || s.Thresholds[0].Value != 12 || !s.Thresholds[0].Pass {
		t.Errorf("the step's thresholds %+v: want load's p99 12 < 50, passed", s.Thresholds)
	}
	// Twice busy: the second is kept (a machine busy for good must not make a search endless).
	ex = &scripted{states: map[string][]machineState{"1111111111aa": {busy}}, runs: map[string]int{}}
	b.ex = ex
	cr, _ = b.Prepare(t.Context(), commitOf("1111111111aa"))
	if err := b.once(t.Context(), cr); err != nil || ex.runs["1111111111aa"] != 2 || cr.Result().JobResults.Diagnostics[0].Kind != diagnose.MachineBusy {
		t.Errorf("busy for good: %v, %d runs, diagnosis %+v", err, ex.runs["1111111111aa"], cr.Result().JobResults.Diagnostics)
	}
}

// A commit whose measure is error-bound (its figures describe the failures) cannot be judged: the
// iteration is not kept and the error names the commit and the diagnosis; in a step, the search
// ends with it (no skip: the commit ran).
func TestErrorBoundCommitCannotBeJudged(t *testing.T) {
	good, bad, mid := commitOf("1111111111aa"), commitOf("3333333333cc"), commitOf("2222222222bb")
	ex := &scripted{states: map[string][]machineState{good.SHA: {quiet}, bad.SHA: {quiet}, mid.SHA: {failing}}, runs: map[string]int{}}
	b, _ := judgedBench(t, ex)
	cr, err := b.Prepare(t.Context(), mid)
	if err != nil {
		t.Fatal(err)
	}
	err = b.once(t.Context(), cr)
	if !errors.Is(err, ErrUnjudged) || cr.Result() != nil {
		t.Fatalf("error-bound: %v, kept %v; want ErrUnjudged and nothing kept", err, cr.Result())
	}
	want := "commit 2222222222 cannot be judged: its measurement's diagnosis is error-bound: 2,000 of 4,000 requests failed"
	if !strings.HasPrefix(err.Error(), want) {
		t.Errorf("error %q, want it to start %q", err, want)
	}
	bs := &bisector{Bench: b, f: Flags{Metric: b.want}, good: good, bad: bad, measured: map[string][]ProfiledRun{}}
	if bs.goodRun, err = b.Prepare(t.Context(), good); err == nil {
		bs.badRun, err = b.Prepare(t.Context(), bad)
	}
	if err != nil {
		t.Fatal(err)
	}
	s, err := bs.judge(t.Context(), Probe{N: 1, About: 1, Commit: mid})
	if !errors.Is(err, ErrUnjudged) || !strings.Contains(err.Error(), "commit 2222222222") || s.Verdict != "" {
		t.Errorf("a step on an error-bound commit: %+v, %v; want the search ended by ErrUnjudged naming it", s, err)
	}
}

// sideRounds is an executor of rounds side by side: its n-th run (from 0) finds the machine in
// states[n] (the last state again after the list): the copies' jobs use 30 % of it, which is
// 38 % busy when quiet, 98 % when busy; the copy of commit failing has half its requests failed.
type sideRounds struct {
	states  []machineState
	failing string
	runs    int
}

func (s *sideRounds) Execute(_ context.Context, r controller.Run) (res *results.Result, err error) {
	state := s.states[min(s.runs, len(s.states)-1)]
	global := map[machineState]float64{quiet: 38, busy: 98, stolen: 38}[state]
	s.runs++
	defer func() {
		if state == stolen {
			for _, jr := range res.JobResults.Jobs {
				for _, m := range slices.Clone(jr.Measurements[0]) {
					jr.Measurements[0] = append(jr.Measurements[0], api.Measurement{Name: measure.CPUSteal, Timestamp: m.Timestamp, Value: 20})
				}
			}
		}
	}()
	shas := map[string]string{} // a copy's suffix: its commit
	for _, svc := range r.Services {
		if _, k, ok := strings.Cut(svc.Name, "#"); ok && svc.Job.Source != nil {
			shas[k] = svc.Job.Source.BranchOrCommit
		}
	}
	jobs := map[string]*results.JobResult{}
	for _, svc := range r.Services {
		name, k, _ := strings.Cut(svc.Name, "#")
		if name == "load" {
			jobs[svc.Name] = boxrun.Job(5, global, boxrun.Load(1000, shas[k] == s.failing))
		} else {
			jobs[svc.Name] = boxrun.Job(10, global, map[string]float64{})
		}
	}
	return &results.Result{JobResults: results.JobResults{Jobs: jobs}}, nil
}

// sideBySidePair makes b a bench side by side (the load's copies aiming at 5000 plus their
// position) and prepares two commits on it.
func sideBySidePair(t *testing.T, b *Bench) (g, h *CommitRun) {
	t.Helper()
	b.side, b.positions = &together{port: 5000, loads: []string{"load"}}, 2
	g, err := b.Prepare(t.Context(), commitOf("1111111111aa"))
	if err == nil {
		h, err = b.Prepare(t.Context(), commitOf("2222222222bb"))
	}
	if err != nil {
		t.Fatal(err)
	}
	return g, h
}

// Side by side, the round is diagnosed whole: a round the hypervisor stole from is run again and
// said once for the round, while a busy one (machine-busy over every copy, which falls on both
// alike) is kept as it is; each commit's part carries the round's diagnosis (alone, a part would
// count the other copy's 15 % as other work) and its own thresholds; a part that is error-bound
// fails its commit, named, and no commit keeps the round.
func TestSideBySideRoundJudgedWhole(t *testing.T) {
	ex := &sideRounds{states: []machineState{stolen, quiet}}
	b, stderr := judgedBench(t, ex)
	g, h := sideBySidePair(t, b)
	if failed, err := b.Round(t.Context(), 0, g, h); err != nil || failed != nil {
		t.Fatalf("round 1: %v (%v)", err, failed)
	}
	if ex.runs != 2 || g.Reruns() != 1 || h.Reruns() != 1 || !strings.HasPrefix(stderr.String(), "bisect: round run again: the machine was disturbed (the hypervisor took 20") ||
		!strings.Contains(stderr.String(), "(steal))\n") {
		t.Errorf("runs %d, re-runs %d and %d, said %q: want 2, 1, 1, the steal said", ex.runs, g.Reruns(), h.Reruns(), stderr.String())
	}
	for _, cr := range []*CommitRun{g, h} {
		res := cr.Result()
		if len(res.JobResults.Diagnostics) == 0 || res.JobResults.Diagnostics[0].Kind == diagnose.MachineBusy {
			t.Errorf("%s: diagnosis %+v, want the quiet round's", cr.Commit().Short(), res.JobResults.Diagnostics)
		}
		if len(res.Thresholds) != 1 || res.Thresholds[0].Service != "load" || !res.Thresholds[0].Pass {
			t.Errorf("%s: thresholds %+v, want its own load's p99 checked", cr.Commit().Short(), res.Thresholds)
		}
		if got := slices.Sorted(maps.Keys(res.JobResults.Jobs)); !slices.Equal(got, []string{"application", "load"}) {
			t.Errorf("%s: jobs %v, want its part under the scenario's names", cr.Commit().Short(), got)
		}
	}
	ex.failing = h.Commit().SHA
	failed, err := b.Round(t.Context(), 1, g, h)
	if failed != h || !errors.Is(err, ErrUnjudged) || !strings.HasPrefix(err.Error(), "commit 2222222222 cannot be judged: its measurement's diagnosis is error-bound") {
		t.Errorf("round 2, the head's copy error-bound: %v, failed %v", err, failed)
	}
	if n := len(g.Result().JobResults.Jobs["load"].Iterations); n != 1 {
		t.Errorf("the good commit kept %d iterations, want 1: the failed round kept by none", n)
	}
	ex.failing, ex.states, ex.runs = "", []machineState{busy}, 0
	stderr.Reset()
	if failed, err := b.Round(t.Context(), 2, g, h); err != nil || failed != nil || ex.runs != 1 || stderr.Len() > 0 {
		t.Fatalf("round 3, busy: %v (%v), %d runs, said %q: want it kept, measured once", err, failed, ex.runs, stderr.String())
	}
	if d := g.Result().JobResults.Diagnostics; len(d) == 0 || d[0].Kind != diagnose.MachineBusy {
		t.Errorf("round 3: the good commit's diagnosis %+v, want the busy round's machine-busy", d)
	}
}

// runCommit is the commit a fake executor's run builds: the last service's source.branchOrCommit.
func runCommit(r controller.Run) string {
	sha := ""
	for _, svc := range r.Services {
		if svc.Job.Source != nil && svc.Job.Source.BranchOrCommit != "" {
			sha = svc.Job.Source.BranchOrCommit
		}
	}
	return sha
}
