package duet

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/gate"
)

// TestMDEKnownValues: (t(1-α/2, df) + t(0.95, df)) · sd/√n with Student's t from the tables.
func TestMDEKnownValues(t *testing.T) {
	for _, c := range []struct {
		sd            float64
		n, fitted     int
		alpha, tA, tB float64
	}{
		{0.015, 20, 0, 0.05, 2.093024, 1.729133},  // df 19
		{0.015, 20, 1, 0.05, 2.100922, 1.734064},  // df 18
		{0.02, 10, 1, 0.0125, 3.205955, 1.859548}, // df 8, alpha split in 4
		{0.01, 61, 0, 0.05, 2.000298, 1.670649},   // df 60
	} {
		want := (c.tA + c.tB) * c.sd / math.Sqrt(float64(c.n))
		if got := MDE(c.sd, c.n, c.alpha, c.fitted); math.Abs(got-want) > 1e-5 {
			t.Errorf("MDE(%g, %d, %g, %d) = %.6f, want %.6f", c.sd, c.n, c.alpha, c.fitted, got, want)
		}
	}
	if !math.IsInf(MDE(0.01, 2, 0.05, 1), 1) {
		t.Error("no degree of freedom left: the MDE should be infinite")
	}
}

// TestJudgeTakesThePositionsOut: the second position costs 3 % in every round; once taken out,
// equal sides are equal, the look says what the position cost, and an exact 5 % head measures 5 %.
func TestJudgeTakesThePositionsOut(t *testing.T) {
	var base, head []float64
	for r := range 10 {
		level := 20 + float64(r%3) // the machine's level moves both alike
		pos := [2]float64{1, 1.03}
		base = append(base, level*pos[r%2]*(1+0.001*float64(r%2)))
		head = append(head, 1.05*level*pos[(r+1)%2]*(1+0.001*float64(r%2)))
	}
	l := Judge(gate.LowerIsBetter, base, head, 0.01, 0.05)
	if math.Abs(l.Position-0.03) > 0.002 || l.Fitted != 1 {
		t.Errorf("position cost %.4f (fitted %d), want 0.03 (1)", l.Position, l.Fitted)
	}
	if r := l.Comparison.Ratio; math.Abs(r-1.05) > 1e-3 || l.Verdict() != gate.VerdictRegressed || l.Comparison.Test != gate.TestPaired {
		t.Errorf("ratio %.4f, verdict %s, test %s: want 1.05, regressed, paired", r, l.Verdict(), l.Comparison.Test)
	}
	if !(l.Detectable >= 0.01) || !(l.MDE > 0) || l.MDE > l.Detectable {
		t.Errorf("MDE %.4f, detectable %.4f: want detectable >= the 1 %% threshold and >= MDE", l.MDE, l.Detectable)
	}
}

// TestScheduleAndLevels: the default plan looks after 6, 17, 29 and 40 rounds at 1.25 % each; a
// short plan looks as often as it has rounds; a plan wrong in a flag says which.
func TestScheduleAndLevels(t *testing.T) {
	p := DefaultPlan(0.05, 0.05)
	if got := p.Schedule(); !slices.Equal(got, []int{6, 17, 29, 40}) || p.LookAlpha() != 0.0125 {
		t.Errorf("default schedule %v at %g, want [6 17 29 40] at 0.0125", got, p.LookAlpha())
	}
	p.MaxRounds = 7
	if got := p.Schedule(); !slices.Equal(got, []int{6, 7}) {
		t.Errorf("6 to 7 rounds: %v, want [6 7]", got)
	}
	p.MaxRounds = 6
	if got := p.Schedule(); !slices.Equal(got, []int{6}) {
		t.Errorf("6 rounds: %v, want [6]", got)
	}
	for _, c := range []struct {
		edit func(*Plan)
		want string
	}{
		{func(p *Plan) { p.MaxRounds = 4 }, "--max-rounds 4"},
		{func(p *Plan) { p.Alpha = 1 }, "--alpha 1"},
		{func(p *Plan) { p.Limit = 0 }, "--limit 0s"},
		{func(p *Plan) { p.Threshold = math.NaN() }, "--threshold"},
	} {
		p := DefaultPlan(0.05, 0.05)
		c.edit(&p)
		if err := p.Check(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("plan %+v: %v, want an error naming %s", p, err, c.want)
		}
	}
}

// TestEarlyStopping: a clear regression stops at the first look (6 rounds), so does a clear
// "unchanged" at a 5 % threshold; rounds too noisy to tell run every look to --max-rounds and say
// how many rounds would tell.
func TestEarlyStopping(t *testing.T) {
	run := func(pairedSD, shift, threshold float64) Outcome {
		t.Helper()
		out, err := Sequence{Plan: DefaultPlan(threshold, 0.05), Direction: gate.LowerIsBetter, Round: newPairs(7, pairedSD, shift).round}.Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	if o := run(0.015, 0.10, 0.01); o.Verdict() != gate.VerdictRegressed || len(o.Base) != 6 || len(o.Looks) != 1 || o.Stopped != StopDecided {
		t.Errorf("10 %% worse: %s after %d rounds, %d looks, stopped %s; want regressed after 6, 1 look, decided", o.Verdict(), len(o.Base), len(o.Looks), o.Stopped)
	}
	if o := run(0.015, 0, 0.05); o.Verdict() != gate.VerdictUnchanged || len(o.Base) != 6 || o.Stopped != StopDecided {
		t.Errorf("equal at 5 %%: %s after %d rounds, stopped %s; want unchanged after 6", o.Verdict(), len(o.Base), o.Stopped)
	}
	o := run(0.06, 0.01, 0.01)
	if o.Verdict() != gate.VerdictInconclusive || len(o.Base) != 40 || len(o.Looks) != 4 || o.Stopped != StopMaxRounds {
		t.Fatalf("noisy 1 %%: %s after %d rounds, %d looks, stopped %s; want inconclusive after 40, 4 looks, max-rounds", o.Verdict(), len(o.Base), len(o.Looks), o.Stopped)
	}
	if need := o.Final().Comparison.Needed; need <= 40 {
		t.Errorf("rounds that would tell: %d, want more than the 40 run", need)
	}
}

// TestTimeBudget: rounds of 30 s under a 5-minute limit: the gate stops before the round that
// would end past it (10 rounds), looks once more then, and takes no more looks than planned.
func TestTimeBudget(t *testing.T) {
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	p := newPairs(3, 0.06, 0.01)
	p.clock, p.perRound = &clock, 30*time.Second
	plan := DefaultPlan(0.01, 0.05)
	plan.Limit = 5 * time.Minute
	out, err := Sequence{Plan: plan, Direction: gate.LowerIsBetter, Round: p.round, Now: func() time.Time { return clock }}.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Base) != 10 || out.Stopped != StopLimit || len(out.Looks) != 2 || out.Final().Rounds != 10 || out.Elapsed != 5*time.Minute {
		t.Errorf("%d rounds, stopped %s, %d looks (the last after %d), %s: want 10, limit, 2 (6 and 10), 5m0s",
			len(out.Base), out.Stopped, len(out.Looks), out.Final().Rounds, out.Elapsed)
	}
}

// TestRoundErrorEnds: a round that fails ends the gate with its error and the rounds so far.
func TestRoundErrorEnds(t *testing.T) {
	p := newPairs(1, 0.015, 0)
	boom := func(ctx context.Context, r int) (float64, float64, error) {
		if r == 3 {
			return 0, 0, context.DeadlineExceeded
		}
		return p.round(ctx, r)
	}
	out, err := Sequence{Plan: DefaultPlan(0.01, 0.05), Direction: gate.LowerIsBetter, Round: boom}.Run(context.Background())
	if err == nil || !strings.Contains(err.Error(), "round 4") || len(out.Base) != 3 || out.Verdict() != gate.VerdictInconclusive {
		t.Errorf("err %v, %d rounds, %s: want round 4's error, 3 rounds, inconclusive", err, len(out.Base), out.Verdict())
	}
}

// TestDisturbedRoundsNotCounted: a round still disturbed once run again is not counted and is
// measured again in the same positions; a 10 % regression is still found from the rounds counted
// (the dropped ones, had they counted, said 30 % better). Dropped rounds count towards
// --max-rounds: a machine disturbed from the fifth round on ends the gate inconclusive at
// --max-rounds, with no look on fewer rounds than the first look's.
func TestDisturbedRoundsNotCounted(t *testing.T) {
	p := newPairs(2, 0.01, 0.10)
	var asked []int
	tries := 0
	flaky := func(ctx context.Context, r int) (float64, float64, error) {
		asked = append(asked, r)
		tries++
		if tries == 3 || tries == 4 {
			return 0.7, 1, &Disturbed{Why: "the hypervisor took 20 % of the machine (steal)"}
		}
		return p.round(ctx, r)
	}
	var dropped []int
	seq := Sequence{Plan: DefaultPlan(0.01, 0.05), Direction: gate.LowerIsBetter, Round: flaky,
		Dropped: func(r int, why string) { dropped = append(dropped, r) }}
	out, err := seq.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(asked, []int{0, 1, 2, 2, 2, 3, 4, 5}) || !slices.Equal(dropped, []int{2, 2}) || out.Dropped != 2 {
		t.Errorf("rounds asked %v, dropped %v (%d): want [0 1 2 2 2 3 4 5], [2 2]", asked, dropped, out.Dropped)
	}
	if out.Verdict() != gate.VerdictRegressed || len(out.Base) != 6 || math.Abs(out.Final().Comparison.Ratio-1.10) > 0.02 {
		t.Errorf("%s after %d rounds at %.3f: want regressed after 6 at about 1.10", out.Verdict(), len(out.Base), out.Final().Comparison.Ratio)
	}

	plan := DefaultPlan(0.01, 0.05)
	plan.MaxRounds = 10
	tries = 0
	stormy := func(ctx context.Context, r int) (float64, float64, error) {
		if tries++; tries > 5 {
			return 0, 0, &Disturbed{Why: "steal"}
		}
		return p.round(ctx, r)
	}
	out, err = Sequence{Plan: plan, Direction: gate.LowerIsBetter, Round: stormy}.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if tries != 10 || len(out.Base) != 5 || out.Dropped != 5 || out.Stopped != StopMaxRounds || len(out.Looks) != 0 || out.Verdict() != gate.VerdictInconclusive {
		t.Errorf("%d tried, %d counted, %d dropped, stopped %s, %d looks, %s: want 10, 5, 5, max-rounds, 0, inconclusive",
			tries, len(out.Base), out.Dropped, out.Stopped, len(out.Looks), out.Verdict())
	}
}
