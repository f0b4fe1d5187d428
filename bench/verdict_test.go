package main

import (
	"math"
	"testing"

	"github.com/crankshaft/crankshaft/internal/stats"
)

// judged is a clean row with target 0.5 whose per-round ratios are ratios, summarized as the
// bench does.
func judged(ratios ...float64) rowResult {
	r := rowResult{row: row{Subject: "sub", Reference: "ref", Target: 0.5}, Clean: true, RoundRatios: ratios}
	r.Ratio = stats.Median(ratios)
	r.Lo, r.Hi, r.HalfWidth = ratioInterval(r.row, ratios)
	return r
}

// TestMet: the verdict is judged on the interval of the median of the rounds (10 rounds: the 2nd
// smallest and the 2nd largest bound it at 95 %), not on the median alone.
func TestMet(t *testing.T) {
	cases := []struct {
		name string
		r    rowResult
		met  string
		why  string
	}{
		{"all under", judged(0.40, 0.41, 0.42, 0.43, 0.44, 0.45, 0.46, 0.47, 0.48, 0.55), "yes", ""},
		{"interval up to the target", judged(0.40, 0.41, 0.42, 0.43, 0.44, 0.45, 0.46, 0.47, 0.50, 0.60), "yes", ""},
		{"all above", judged(0.49, 0.51, 0.55, 0.56, 0.57, 0.58, 0.59, 0.60, 0.61, 0.62), "no", ""},
		// the median 0.525 is over the target, but its interval 0.46-0.58 holds it; its lower side,
		// 0.065 under the median, would have to shrink to 0.025: 10 x (0.065/0.025)^2 = 67.6 rounds
		{"holds the target", judged(0.44, 0.46, 0.48, 0.50, 0.52, 0.53, 0.54, 0.56, 0.58, 0.60), "cannot tell",
			"its 95 % interval 0.46x-0.58x holds 0.50x: about 68 rounds in all would tell (--runs, --max-rounds)"},
		{"on the target", judged(0.40, 0.45, 0.48, 0.49, 0.50, 0.50, 0.52, 0.55, 0.58, 0.60), "cannot tell",
			"its 95 % interval 0.45x-0.58x holds 0.50x: the ratio sits at the target, and more than 1000 rounds would be needed to tell"},
		{"too few rounds", judged(0.1, 0.1, 0.1, 0.1, 0.1), "cannot tell",
			"5 rounds give no 95 % interval (6 do): more rounds would tell"},
		{"no target", rowResult{Ratio: 0.3, Lo: 0.2, Hi: 0.4, Clean: true}, "-", ""},
		{"no figure", rowResult{row: row{Target: 0.5}, Ratio: math.NaN(), Lo: math.NaN(), Hi: math.NaN()}, "-", ""},
	}
	disturbed := judged(0.40, 0.41, 0.42, 0.43, 0.44, 0.45, 0.46, 0.47, 0.48, 0.49)
	disturbed.Clean = false
	cases = append(cases, struct {
		name string
		r    rowResult
		met  string
		why  string
	}{"disturbed rounds", disturbed, "cannot tell",
		"its figures include disturbed rounds (other work on its CPUs): a run on a quiet machine would tell"})
	for _, c := range cases {
		if got, why := c.r.Met(), c.r.Why(); got != c.met || why != c.why {
			t.Errorf("%s (%v, interval %v-%v): %q %q, want %q %q", c.name, c.r.Ratio, c.r.Lo, c.r.Hi, got, why, c.met, c.why)
		}
	}
}

func TestMetAllBelow(t *testing.T) {
	for _, c := range []struct {
		xs   []float64
		want string
	}{
		{[]float64{0.2, 0.3, 0.49}, "yes"},
		{[]float64{0.2, 0.3, 0.5}, "cannot tell"}, // the median is under, one run is not
		{[]float64{0.6, 0.5, 0.7}, "no"},
		{nil, "-"},
	} {
		if got := metAllBelow(c.xs, 0.5); got != c.want {
			t.Errorf("%v under 0.5: %q, want %q", c.xs, got, c.want)
		}
	}
}

// TestRoundsToTell: the estimate uses the interval's side that faces the target, so a row whose
// interval still holds the target is never told that fewer rounds than it has would do (the bench
// of 2026-12-02: 0.80x in 0.66x-0.84x over 17 rounds against 0.70x said "about 14" from the
// half-width).
func TestRoundsToTell(t *testing.T) {
	if got := roundsToTell(17, 0.80, 0.66, 0.84, 0.70); got != 34 { // 17 x (0.14/0.10)^2 = 33.3
		t.Errorf("under the ratio: %d rounds, want 34", got)
	}
	if got := roundsToTell(10, 0.60, 0.55, 0.75, 0.70); got != 23 { // 10 x (0.15/0.10)^2 = 22.5
		t.Errorf("over the ratio: %d rounds, want 23", got)
	}
	if got := roundsToTell(10, 0.70, 0.6, 0.8, 0.70); got != maxRoundsToTell+1 {
		t.Errorf("on the target: %d, want %d", got, maxRoundsToTell+1)
	}
}

// TestMetMeanBelow: the agent's CPU is judged on the interval of its slices' mean: a mean under
// the limit whose interval reaches it cannot tell, and neither can too few slices.
func TestMetMeanBelow(t *testing.T) {
	for _, c := range []struct {
		name string
		xs   []float64
		want string
		why  string
	}{
		{"all under", []float64{0.20, 0.30, 0.25, 0.22, 0.28, 0.24, 0.26, 0.25, 0.27, 0.23}, "yes", ""},
		{"interval holds the limit", []float64{0.8, 1.1, 0.9, 1.2, 0.7, 1.0, 0.9, 1.1, 0.8, 1.0}, "cannot tell",
			"its 95 % interval 0.84-1.06% holds 1%: a longer window would tell (--agent-window)"},
		{"interval under, one slice over", []float64{0.9, 0.95, 1.0, 0.92, 0.97, 0.93}, "yes", ""},
		{"all over", []float64{1.2, 1.3, 1.1, 1.25, 1.15, 1.2}, "no", ""},
		{"too few slices", []float64{0.1, 0.1, 0.1, 0.1, 0.1}, "cannot tell",
			"5 slices of the window give no 95 % interval (6 do): a longer window would tell (--agent-window)"},
		{"none", nil, "-", ""},
	} {
		if got, why := metMeanBelow(c.xs, 1); got != c.want || why != c.why {
			t.Errorf("%s: %q %q, want %q %q", c.name, got, why, c.want, c.why)
		}
	}
}
