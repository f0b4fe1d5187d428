package bisect

import (
	"math"
	"math/rand/v2"
	"testing"
)

// Three commits side by side, rotating through positions that cost 0, +3.5 % and +1 %, on a
// machine whose level moves by 5 % from round to round, each figure with 0.7 % of its own: the
// middle commit is the good one's equal and the last 3 % worse. Unbiased, it is told good, and the
// positions' costs come out.
func TestUnbiasTakesOutWhatPositionsCost(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	cost := []float64{0, 0.035, 0.01}
	commit := []float64{0, 0, 0.03}
	const rounds = 30
	series := make([][]float64, 3)
	for r := range rounds {
		level := 0.05 * rng.NormFloat64()
		for i := range 3 {
			v := 70 * math.Exp(level+commit[i]+cost[Position(i, r, 3)]+0.007*rng.NormFloat64())
			series[i] = append(series[i], v)
		}
	}
	un, fitted := Unbias(series)
	if fitted != 2 {
		t.Errorf("degrees of freedom spent: %d, want 2 (three positions)", fitted)
	}
	p := PlaceFitted(un[0], un[1], un[2], fitted)
	if way, half := p.Way(); p.Verdict() != Good || way > 0.2 || way < -0.2 {
		t.Errorf("unbiased: %s at %.2f ± %.2f of the way, want good near 0", p.Verdict(), way, half)
	}
	// What comes out of each figure is its position's cost past the positions' mean (1.5 %).
	for i, s := range un {
		for r := range rounds {
			want := -(cost[Position(i, r, 3)] - 0.015)
			if got := math.Log(s[r] / series[i][r]); math.Abs(got-want) > 0.003 {
				t.Errorf("commit %d, round %d: taken out %.4f, want %.4f", i, r, got, want)
			}
		}
	}
	// Rotated, the figures as measured are not pulled either way, but the positions' costs fall on
	// each round differently and widen the interval: Unbias is what narrows it.
	_, rawHalf := Place(series[0], series[1], series[2]).Way()
	if _, half := p.Way(); half > rawHalf/2 {
		t.Errorf("interval of the way: %.2f unbiased, %.2f as measured; want under half", half, rawHalf)
	}
	short := [][]float64{series[0][:2], series[1][:2], series[2][:2]}
	if got, fitted := Unbias(short); &got[0][0] != &short[0][0] || fitted != 0 {
		t.Error("fewer rounds than commits: the series should come back as they are")
	}
}

// Over any n rounds, each commit takes each position once.
func TestPositionRotates(t *testing.T) {
	seen := map[[2]int]int{}
	for r := range 6 {
		used := map[int]bool{}
		for i := range 3 {
			k := Position(i, r, 3)
			if used[k] {
				t.Fatalf("round %d: position %d given twice", r, k)
			}
			used[k] = true
			seen[[2]int{i, k}]++
		}
	}
	for i := range 3 {
		for k := range 3 {
			if seen[[2]int{i, k}] != 2 {
				t.Errorf("commit %d in position %d %d times in 6 rounds, want 2", i, k, seen[[2]int{i, k}])
			}
		}
	}
}
