package bisect

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
)

func commits(n int) []Commit {
	var cs []Commit
	for i := range n {
		cs = append(cs, Commit{SHA: fmt.Sprintf("%040d", i+1), Subject: fmt.Sprintf("commit %d", i+1)})
	}
	return cs
}

// judgeFrom says bad from index culprit on; skip for the indexes in skipped.
func judgeFrom(cs []Commit, culprit int, skipped map[int]bool, asked *[]int) Judge {
	return func(_ context.Context, p Probe) (Step, error) {
		c, i := p.Commit, 0
		for i = range cs {
			if cs[i].SHA == c.SHA {
				break
			}
		}
		*asked = append(*asked, i)
		switch {
		case skipped[i]:
			return Step{Commit: c, Verdict: Skip}, nil
		case culprit >= 0 && i >= culprit:
			return Step{Commit: c, Verdict: Bad}, nil
		}
		return Step{Commit: c, Verdict: Good}, nil
	}
}

func TestSearch(t *testing.T) {
	cs := commits(16)
	for culprit := range 16 {
		var asked []int
		r, err := Search(context.Background(), cs, judgeFrom(cs, culprit, nil, &asked))
		if err != nil || r.FirstBad != cs[culprit].SHA || r.NoneWorse {
			t.Errorf("culprit %d: %+v %v (asked %v)", culprit, r.FirstBad, err, asked)
		}
		if len(asked) > 5 {
			t.Errorf("culprit %d: %d steps %v, want at most 5", culprit, len(asked), asked)
		}
		for i, s := range r.Steps {
			if s.Position != asked[i]+1 {
				t.Errorf("culprit %d: step %d (%s) at position %d, want %d", culprit, i+1, s.Commit.Subject, s.Position, asked[i]+1)
			}
		}
	}
	var asked []int
	r, err := Search(context.Background(), cs, judgeFrom(cs, -1, nil, &asked))
	if err != nil || !r.NoneWorse || r.FirstBad != "" {
		t.Errorf("no culprit: %+v %v", r, err)
	}
	asked = nil
	r, _ = Search(context.Background(), cs, judgeFrom(cs, 9, map[int]bool{7: true, 8: true}, &asked))
	if r.FirstBad != cs[9].SHA {
		t.Errorf("skips before the culprit: first bad %v, asked %v", r.FirstBad, asked)
	}
	asked = nil
	r, _ = Search(context.Background(), cs, judgeFrom(cs, 8, map[int]bool{7: true}, &asked))
	if r.FirstBad != cs[8].SHA || len(r.Candidates) != 2 || r.Candidates[0].SHA != cs[7].SHA {
		t.Errorf("a skipped commit just before the culprit: %+v (asked %v): want 8 or 9 named as candidates", r, asked)
	}
}

// TestSearchConfirmsMarginalSteps: the commit that made it worse is first judged good on a marginal
// placement (as a search here judged the 3 % commit): the search measures it again, finds it bad
// twice, and names it instead of the next commit; a clear placement is not measured again.
func TestSearchConfirmsMarginalSteps(t *testing.T) {
	cs := commits(8)
	const culprit = 4
	var asked []int
	seen := map[int]int{}
	judge := func(_ context.Context, p Probe) (Step, error) {
		c, i := p.Commit, 0
		for i = range cs {
			if cs[i].SHA == c.SHA {
				break
			}
		}
		asked = append(asked, i)
		if p.Again != seen[i] {
			t.Errorf("commit %d measured %d times before, the probe says %d", i+1, seen[i], p.Again)
		}
		seen[i]++
		switch {
		case i == culprit && seen[i] == 1: // wrong, barely: its interval comes within 0.1 of the midpoint
			return Step{Commit: c, Verdict: Good, Way: 0.1, WayHalfWidth: 0.3}, nil
		case i >= culprit:
			return Step{Commit: c, Verdict: Bad, Way: 0.95, WayHalfWidth: 0.2}, nil
		}
		return Step{Commit: c, Verdict: Good, Way: 0.02, WayHalfWidth: 0.1}, nil
	}
	r, err := Search(context.Background(), cs, judge)
	if err != nil || r.FirstBad != cs[culprit].SHA {
		t.Fatalf("first bad %q, %v (asked %v); want commit %d", r.FirstBad, err, asked, culprit+1)
	}
	if seen[culprit] != 3 {
		t.Errorf("the marginal commit measured %d times (asked %v), want 3: once, again, and a third time to decide", seen[culprit], asked)
	}
	for i, n := range seen {
		if i != culprit && n > 1 {
			t.Errorf("commit %d, clearly placed, measured %d times (asked %v)", i+1, n, asked)
		}
	}
}

// TestSearchCannotTellSaysHowMany: a step placed too widely to decide ends the search with the
// rounds that would tell it at that spread; one placed narrowly near the midpoint, with enough
// rounds for a commit at an end, says it lies between the ends; one without a placement asks for
// precision or rounds.
func TestSearchCannotTellSaysHowMany(t *testing.T) {
	cs := commits(8)
	for _, c := range []struct {
		way, half float64
		want      string
	}{
		{0.27, 0.47, "told after about 15"},
		{0.5, 0.1, "this one lies between them, at 0.50 ± 0.10 of the way"},
		{0.27, 0, "ask a finer --precision or more --max-iterations"},
	} {
		judge := func(_ context.Context, p Probe) (Step, error) {
			return Step{Commit: p.Commit, Verdict: CannotTell, Iterations: 100, Way: c.way, WayHalfWidth: c.half}, nil
		}
		_, err := Search(context.Background(), cs, judge)
		if !errors.Is(err, ErrCannotTell) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("at %v ± %v: %v, want ErrCannotTell saying %q", c.way, c.half, err, c.want)
		}
	}
}

// TestStepNeverPastItsAbout: skipped commits and confirmations take a search past the halvings'
// count; each step's "of about" grows with it instead of reading "step 4 of about 3" (issue 48).
func TestStepNeverPastItsAbout(t *testing.T) {
	cs := commits(8)
	var asked []int
	judge := judgeFrom(cs, 5, map[int]bool{3: true, 4: true, 2: true}, &asked)
	var probes []Probe
	_, err := Search(context.Background(), cs, func(ctx context.Context, p Probe) (Step, error) {
		probes = append(probes, p)
		return judge(ctx, p)
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(probes) <= Steps(len(cs)) {
		t.Fatalf("%d steps: the test needs more than the %d halvings", len(probes), Steps(len(cs)))
	}
	for _, p := range probes {
		if p.N > p.About {
			t.Errorf("step %d of about %d", p.N, p.About)
		}
	}
}
