package bisect

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/controller"
	"github.com/crankshaft/crankshaft/internal/measure"
	"github.com/crankshaft/crankshaft/internal/results"
	"github.com/crankshaft/crankshaft/internal/runner"
	"github.com/crankshaft/crankshaft/internal/testutil/boxrun"
)

// stealing is an executor of commits one after the other: its n-th run (from 0, over every
// commit) measures the commit's requests/s (rps, by the application's source.branchOrCommit),
// within 0.3 % of it, on a quiet machine; when stolen(n), the hypervisor took 20 % of the machine
// (steal) and the run measured half the commit's requests/s (what the search would judge, were
// such a run counted).
type stealing struct {
	rps    map[string]float64
	stolen func(n int) bool
	order  []string // the commit of each run
}

func (s *stealing) Execute(_ context.Context, r controller.Run) (*results.Result, error) {
	sha := runCommit(r)
	rps, ok := s.rps[sha]
	if !ok {
		return nil, fmt.Errorf("no figure for commit %q", sha)
	}
	n := len(s.order)
	s.order = append(s.order, sha)
	rps *= 1 + []float64{0, 0.003, -0.002, 0.001, -0.003}[n%5]
	stolen := s.stolen(n)
	if stolen {
		rps /= 2
	}
	res := roundResult(quiet)
	res.JobResults.Jobs["load"] = boxrun.Job(20, 55, boxrun.Load(rps, false))
	if stolen {
		for _, jr := range res.JobResults.Jobs {
			for _, m := range slices.Clone(jr.Measurements[0]) {
				jr.Measurements[0] = append(jr.Measurements[0], api.Measurement{Name: measure.CPUSteal, Timestamp: m.Timestamp, Value: 20})
			}
		}
	}
	return res, nil
}

// history is a good commit and the n commits after it (the last, bad), each SHA its position
// then c's: 0ccccccccccc, 1ccccccccccc, ...; from culprit on, each measures 900 requests/s, 1,000
// before.
func history(n, culprit int) (good Commit, after []Commit, rps map[string]float64) {
	rps = map[string]float64{}
	for i := range n + 1 {
		c := Commit{SHA: strconv.Itoa(i) + strings.Repeat("c", 11), Subject: fmt.Sprintf("change %d", i)}
		rps[c.SHA] = map[bool]float64{true: 900, false: 1000}[i >= culprit]
		if i == 0 {
			good = c
		} else {
			after = append(after, c)
		}
	}
	return good, after, rps
}

// stolenBisector is crank bisect over a history on the executor ex, with at most iterations
// rounds a step, its JSON written to a file; stdout and stderr get its lines.
func stolenBisector(t *testing.T, ex *stealing, good, bad Commit, iterations int) (b *bisector, stdout, stderr *bytes.Buffer, jsonPath string) {
	t.Helper()
	bench, stderr := judgedBench(t, ex)
	stdout = &bytes.Buffer{}
	jsonPath = filepath.Join(t.TempDir(), "bisect.json")
	bench.c.Stdout, bench.c.JSON, bench.c.Plan.Run.Iterations = stdout, jsonPath, iterations
	b = &bisector{Bench: bench, f: Flags{Metric: bench.want}, good: good, bad: bad, measured: map[string][]ProfiledRun{}}
	return b, stdout, stderr, jsonPath
}

// readBisect is the search's answer crank bisect wrote to its JSON, and the file's return code.
func readBisect(t *testing.T, path string) (Result, int) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		ReturnCode int    `json:"returnCode"`
		Bisect     Result `json:"bisect"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	return doc.Bisect, doc.ReturnCode
}

// A round in which a commit's iteration was still under steal once run again is not counted, as
// crank compare --base --head's gate does not count one: no commit of the round keeps its
// iteration (the other commit's, measured on a quiet machine, neither), the line names the commit,
// the iteration and the steal, and the round is measured again in the same order; it counts
// towards --max-iterations.
func TestStolenRoundNotCounted(t *testing.T) {
	good, after, rps := history(1, 1)
	bad := after[0]
	ex := &stealing{rps: rps, stolen: func(n int) bool { return n == 2 || n == 3 }} // round 2's first run and its re-run
	b, _, stderr, _ := stolenBisector(t, ex, good, bad, 4)
	g, err := b.prepare(t.Context(), good)
	if err != nil {
		t.Fatal(err)
	}
	w, err := b.prepare(t.Context(), bad)
	if err != nil {
		t.Fatal(err)
	}
	never := func() bool { return false }
	if failed, err := b.rounds(t.Context(), never, g, w); err != nil {
		t.Fatalf("rounds: %v (%v)", err, failed)
	}
	// round 1: good, bad; round 2: bad (stolen), bad again (stolen), good: not counted; round 2
	// again, in its order: bad, good; round 3: good, bad.
	wantOrder := []string{good.SHA, bad.SHA, bad.SHA, bad.SHA, good.SHA, bad.SHA, good.SHA, good.SHA, bad.SHA}
	if !slices.Equal(ex.order, wantOrder) {
		t.Errorf("runs %v, want %v", ex.order, wantOrder)
	}
	gv, wv := b.Values(g), b.Values(w)
	if len(gv) != 3 || len(wv) != 3 {
		t.Fatalf("good counted %v, bad %v: want 3 iterations each (4 rounds run, 1 not counted)", gv, wv)
	}
	for _, v := range wv {
		if v < 890 || v > 910 {
			t.Errorf("bad's iterations %v: want each near 900 (the stolen 450 not counted)", wv)
		}
	}
	if math.Abs(gv[1]-1003) > 0.01 { // good's run 6 (+0.3 %), not its run 4 (997): the round not counted
		t.Errorf("good's second iteration %v, want the round measured again (1,003)", gv[1])
	}
	if g.dropped != 1 || w.dropped != 1 || w.Reruns() != 1 || g.Reruns() != 0 {
		t.Errorf("dropped %d and %d, re-runs %d and %d: want 1, 1, 0, 1", g.dropped, w.dropped, g.Reruns(), w.Reruns())
	}
	want := "bisect: round 2 not counted: the hypervisor still took the machine's CPU when it was run again (1ccccccccc's iteration 2: the hypervisor took 20"
	if !strings.Contains(stderr.String(), want) || !strings.Contains(stderr.String(), "(2 of 4 rounds run): measuring it again\n") {
		t.Errorf("said %q, want a line starting %q, saying the round counts", stderr.String(), want)
	}
	if n := strings.Count(stderr.String(), "bisect: round 2: "); n != 1 {
		t.Errorf("round 2's estimate said %d times, want once (the round counted)", n)
	}
	// A step measured on such rounds says so, on its line and in its JSON.
	s := b.step(w.c, w.acc, g.acc, nil)
	s.Dropped = w.dropped
	if line := FigureOf(b.f.metricName()).Row(1, 1, s).Line(); !strings.Contains(line, "over 3 iterations (1 round not counted: steal)") {
		t.Errorf("the step's line %q, want it to say the round not counted", line)
	}
}

// With some rounds stolen, the search still names the first bad commit; the rounds not counted are
// said, a line each, and counted in the path and the JSON.
func TestBisectFindsRegressionWithSomeRoundsStolen(t *testing.T) {
	good, after, rps := history(8, 5)
	// every 13 runs, a run and its re-run under steal (a round not counted), and a run under steal
	// whose re-run was not (run again, kept)
	ex := &stealing{rps: rps, stolen: func(n int) bool { return n%13 == 6 || n%13 == 7 || n%13 == 10 }}
	b, stdout, stderr, path := stolenBisector(t, ex, good, after[len(after)-1], 10)
	if code := b.run(t.Context(), after); code != runner.ExitOK {
		t.Fatalf("exit %d, want 0; stderr:\n%s", code, stderr)
	}
	r, rc := readBisect(t, path)
	if r.FirstBad != after[4].SHA || r.Stopped != "" || rc != 0 {
		t.Errorf("first bad %q (stopped %q, code %d), want %s", r.FirstBad, r.Stopped, rc, after[4].SHA)
	}
	said := strings.Count(stderr.String(), " not counted: the hypervisor still took the machine's CPU")
	if r.Dropped == 0 || r.Dropped != said || r.Dropped != r.dropped() {
		t.Errorf("JSON dropped %d, %d lines said, %d over the steps: want them equal and more than 0", r.Dropped, said, r.dropped())
	}
	for _, s := range append([]Step{r.BadEnd}, r.Steps...) {
		if s.Verdict != Good && s.Verdict != Bad {
			t.Errorf("%s: verdict %q", s.Commit.Short(), s.Verdict)
		}
		if s.Mean < 890 || s.Mean > 1010 {
			t.Errorf("%s: mean %.1f, want it over the counted rounds alone (a stolen one halves it)", s.Commit.Short(), s.Mean)
		}
	}
	want := fmt.Sprintf("  not counted: %d rounds during which the hypervisor still took the machine's CPU (steal) once run again", r.Dropped)
	if !strings.Contains(stdout.String(), want) || !strings.Contains(stdout.String(), "first bad commit: "+after[4].SHA+" change 5\n") {
		t.Errorf("path %q, want %q and the first bad commit", stdout.String(), want)
	}
}

// A machine stolen from some point on ends the search with cannot tell (exit 1, the JSON's
// stopped ErrCannotTell), never a verdict: the rounds not counted still count towards
// --max-iterations, so it ends.
func TestBisectStolenForGoodCannotTell(t *testing.T) {
	for _, tc := range []struct {
		name  string
		from  int // the first run under steal
		ended string
	}{
		{"from the start", 0, "the bad end 8ccccccccc: 10 of its rounds were not counted (still under steal once run again) and none was;"},
		{"from the first step", 8, "4ccccccccc (change 4): 10 of its rounds were not counted (still under steal once run again) and none was;"},
		{"from the first step's second round", 9, "4ccccccccc (change 4): 9 of its rounds were not counted (still under steal once run again) and 1 was, "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			good, after, rps := history(8, 5)
			ex := &stealing{rps: rps, stolen: func(n int) bool { return n >= tc.from }}
			b, stdout, stderr, path := stolenBisector(t, ex, good, after[len(after)-1], 10)
			code := b.run(t.Context(), after)
			if code != runner.ExitFailed {
				t.Fatalf("exit %d, want %d (cannot tell); stderr:\n%s", code, runner.ExitFailed, stderr)
			}
			r, rc := readBisect(t, path)
			if rc != runner.ExitFailed || r.FirstBad != "" || r.NoneWorse || len(r.Candidates) > 0 {
				t.Errorf("code %d, first bad %q, none worse %v, candidates %v: want no verdict", rc, r.FirstBad, r.NoneWorse, r.Candidates)
			}
			if !strings.HasPrefix(r.Stopped, ErrCannotTell.Error()+": "+tc.ended) {
				t.Errorf("stopped %q, want ErrCannotTell: %s...", r.Stopped, tc.ended)
			}
			last := r.BadEnd
			if len(r.Steps) > 0 {
				last = r.Steps[len(r.Steps)-1]
			}
			if last.Verdict != CannotTell || last.Dropped == 0 || last.Dropped+last.Iterations != 10 {
				t.Errorf("the last step %+v: want cannot tell, its 10 rounds dropped or counted", last)
			}
			if last.Iterations == 0 && !strings.Contains(stdout.String(), last.Commit.Short()+" "+last.Commit.Subject+": no iteration counted (") {
				t.Errorf("path %q: want the last step's row to say no iteration was counted", stdout.String())
			}
			if strings.Contains(stdout.String(), "first bad commit") || !strings.Contains(stdout.String(), "not counted: ") {
				t.Errorf("path %q: want no answer, the rounds not counted said", stdout.String())
			}
			if len(ex.order) > 8+3*2*10 {
				t.Errorf("%d runs: want the search bounded by --max-iterations", len(ex.order))
			}
		})
	}
	// The same search's judge, its error: the step cannot be told, and Search says ErrCannotTell.
	good, after, rps := history(8, 5)
	ex := &stealing{rps: rps, stolen: func(n int) bool { return n >= 0 }}
	b, _, _, _ := stolenBisector(t, ex, good, after[len(after)-1], 4)
	var err error
	if b.goodRun, err = b.prepare(t.Context(), good); err == nil {
		b.badRun, err = b.prepare(t.Context(), after[len(after)-1])
	}
	if err != nil {
		t.Fatal(err)
	}
	_, err = Search(t.Context(), after, b.judge)
	if !errors.Is(err, ErrCannotTell) || !strings.Contains(err.Error(), "4 of its rounds were not counted (still under steal once run again)") {
		t.Errorf("Search: %v, want ErrCannotTell saying 4 rounds were not counted", err)
	}
}

// Side by side, a round still under steal once run again is the round's, not one commit's: every
// commit gives it back and the round is measured again.
func TestStolenRoundSideBySideNotCounted(t *testing.T) {
	ex := &sideRounds{states: []machineState{quiet, stolen, stolen, quiet}}
	bench, stderr := judgedBench(t, ex)
	bench.c.Plan.Run.Iterations = 4
	g, h := sideBySidePair(t, bench)
	b := &bisector{Bench: bench, f: Flags{Metric: bench.want}, measured: map[string][]ProfiledRun{}}
	if failed, err := b.rounds(t.Context(), func() bool { return false }, g, h); err != nil {
		t.Fatalf("rounds: %v (%v)", err, failed)
	}
	if ex.runs != 5 || len(b.Values(g)) != 3 || len(b.Values(h)) != 3 || g.dropped != 1 || h.dropped != 1 {
		t.Errorf("%d runs, %d and %d iterations counted, %d and %d rounds dropped: want 5, 3, 3, 1, 1",
			ex.runs, len(b.Values(g)), len(b.Values(h)), g.dropped, h.dropped)
	}
	want := "bisect: round 2 not counted: the hypervisor still took the machine's CPU when it was run again (1111111111's iteration 2: the hypervisor took 20"
	if !strings.Contains(stderr.String(), want) || !strings.Contains(stderr.String(), "; 2222222222's iteration 2: ") {
		t.Errorf("said %q, want %q naming both commits", stderr.String(), want)
	}
}
