package duet

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/bisect"
	"github.com/crankshaft/crankshaft/internal/gate"
)

// pairs simulates rounds side by side as measured here (docs/BISECT.md): a launch's level moves by
// launchSD from round to round and falls on both sides alike; the second position costs position
// more; each side has its own noise, so that a round's paired difference has a standard deviation
// of pairedSD; head is shift more costly.
type pairs struct {
	rng                                 *rand.Rand
	launchSD, pairedSD, position, shift float64
	// clock advances by perRound for every round measured (nil: not kept).
	clock    *time.Time
	perRound time.Duration
}

func newPairs(seed uint64, pairedSD, shift float64) *pairs {
	return &pairs{rng: rand.New(rand.NewPCG(seed, 45)), launchSD: 0.08, pairedSD: pairedSD, position: 0.03, shift: shift}
}

func (p *pairs) round(_ context.Context, r int) (float64, float64, error) {
	level := 25 * math.Exp(p.launchSD*p.rng.NormFloat64())
	own := p.pairedSD / math.Sqrt2
	cost := func(i int) float64 { return float64(bisect.Position(i, r, 2)) * math.Log1p(p.position) }
	base := level * math.Exp(own*p.rng.NormFloat64()+cost(0))
	head := level * math.Exp(math.Log1p(p.shift)+own*p.rng.NormFloat64()+cost(1))
	if p.clock != nil {
		*p.clock = p.clock.Add(p.perRound)
	}
	return base, head, nil
}

// gates runs n simulated gates of plan and counts their verdicts.
func gates(t *testing.T, n int, plan Plan, pairedSD, shift float64) map[gate.Verdict]int {
	t.Helper()
	counts := map[gate.Verdict]int{}
	for i := range n {
		p := newPairs(uint64(i+1), pairedSD, shift)
		out, err := Sequence{Plan: plan, Direction: gate.LowerIsBetter, Round: p.round}.Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		counts[out.Verdict()]++
	}
	return counts
}

// The acceptance's plan: crank compare --base --head --threshold 1%, every other default.
func acceptancePlan() Plan { return DefaultPlan(0.01, gate.DefaultAlpha) }

// TestNullGatesRarelyRegress: base against itself (paired sd 1.5 %, launches varying by 8 %, a
// position costing 3 %), 1,000 gates: called regressed in at most 5 % of them, at the
// acceptance's 1 % threshold and with no threshold at all (any significant change counts: only
// the looks' split alpha guards then).
func TestNullGatesRarelyRegress(t *testing.T) {
	for _, threshold := range []float64{0.01, 0} {
		plan := acceptancePlan()
		plan.Threshold = threshold
		c := gates(t, 1000, plan, 0.015, 0)
		t.Logf("threshold %.0f %%: %v", 100*threshold, c)
		if c[gate.VerdictRegressed] > 50 {
			t.Errorf("threshold %.0f %%: %d of 1000 null gates regressed, want at most 50", 100*threshold, c[gate.VerdictRegressed])
		}
		if c[gate.VerdictRegressed]+c[gate.VerdictImproved]+c[gate.VerdictUnchanged]+c[gate.VerdictInconclusive] != 1000 {
			t.Errorf("verdicts %v do not add up to 1000", c)
		}
	}
}

// TestTwoPercentShiftRegresses: a head 2 % more costly (paired sd 1.5 %), 1,000 gates at the
// acceptance's plan: regressed in at least 90 %.
func TestTwoPercentShiftRegresses(t *testing.T) {
	c := gates(t, 1000, acceptancePlan(), 0.015, 0.02)
	t.Logf("%v", c)
	if c[gate.VerdictRegressed] < 900 {
		t.Errorf("%d of 1000 gates found a 2 %% regression, want at least 900", c[gate.VerdictRegressed])
	}
	if c[gate.VerdictImproved] > 0 || c[gate.VerdictUnchanged] > 0 {
		t.Errorf("a 2 %% regression called improved or unchanged: %v", c)
	}
}

// TestPeekingAfterEveryRoundInflates is why the plan looks only a few times at a split alpha: the
// same null rounds tested after every round from the 3rd at 5 %, stopping at the first
// significant answer, find a change that is not there in far more than 5 % of gates.
func TestPeekingAfterEveryRoundInflates(t *testing.T) {
	const n = 300 // every round judged: a tenth of a second a gate
	naive, planned := 0, 0
	for i := range n {
		p := newPairs(uint64(i+1), 0.015, 0)
		var base, head []float64
		for r := range DefaultMaxRounds {
			b, h, _ := p.round(context.Background(), r)
			base, head = append(base, b), append(head, h)
			if r+1 >= 3 {
				if c := Judge(gate.LowerIsBetter, base, head, 0, 0.05).Comparison; c.PValue < 0.05 {
					naive++
					break
				}
			}
		}
		plan := acceptancePlan()
		plan.Threshold = 0
		out, _ := Sequence{Plan: plan, Direction: gate.LowerIsBetter, Round: newPairs(uint64(i+1), 0.015, 0).round}.Run(context.Background())
		if v := out.Verdict(); v == gate.VerdictRegressed || v == gate.VerdictImproved {
			planned++
		}
	}
	t.Logf("significant on null rounds: every round from the 3rd at 5 %%: %d of %d; the plan: %d", naive, n, planned)
	if naive < n/6 || planned > n/20 {
		t.Errorf("peeking after every round: %d of %d significant (want over %d: the inflation the plan guards against); the plan %d (want at most %d)", naive, n, n/6, planned, n/20)
	}
}

// TestMDEHasItsPower: at a fixed number of rounds (one look, no early stop), a true change of the
// MDE that the rounds' spread gives is found significant 95 % of the time.
func TestMDEHasItsPower(t *testing.T) {
	const n, rounds, sd = 2000, 20, 0.015
	shift := math.Expm1(MDE(sd, rounds, 0.05, 1))
	found := 0
	for i := range n {
		p := newPairs(uint64(i+1), sd, shift)
		var base, head []float64
		for r := range rounds {
			b, h, _ := p.round(context.Background(), r)
			base, head = append(base, b), append(head, h)
		}
		if c := Judge(gate.LowerIsBetter, base, head, 0, 0.05).Comparison; c.PValue < 0.05 && c.Ratio > 1 {
			found++
		}
	}
	t.Logf("a shift of %.2f %% found in %d of %d", 100*shift, found, n)
	if rate := float64(found) / n; rate < 0.93 || rate > 0.97 {
		t.Errorf("a change of the MDE found in %.1f %% of runs, want 95 %% (93-97)", 100*rate)
	}
}
