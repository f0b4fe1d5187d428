package bisect

import (
	"math"
	"testing"
)

// rounds makes n rounds of the three figures: the machine's speed drifting by a fifth between
// rounds (what an unpaired test would see as noise), the bad end 3 % above good, the commit at
// at (0: good's level, 1: bad's), and each launch off by up to noise (a fixed pattern).
func rounds(n int, at, noise float64) (good, cand, bad []float64) {
	wiggle := []float64{0, 1, -1, 0.5, -0.5, 0.8, -0.8, 0.2, -0.2, 0.6}
	for i := range n {
		level := 100 * (1 + 0.2*math.Sin(float64(i)))
		e := func(k int) float64 { return 1 + noise*wiggle[(i+k)%len(wiggle)] }
		good = append(good, level*e(0))
		bad = append(bad, level*1.03*e(3))
		cand = append(cand, level*(1+0.03*at)*e(7))
	}
	return good, cand, bad
}

func TestPlaceDriftDropsOut(t *testing.T) {
	for _, c := range []struct {
		at   float64
		want string
	}{{0, Good}, {1, Bad}, {0.5, ""}} {
		g, cand, b := rounds(12, c.at, 0.005)
		p := Place(g, cand, b)
		wantToward := 0.03 * (c.at - 0.5) // a ratio's log: about the fraction
		way, half := p.Way()
		if p.Verdict() != c.want || math.Abs(p.Toward-wantToward) > 0.004 || p.Rounds != 12 || math.Abs(way-c.at) > 0.15 || half > 0.5 {
			t.Errorf("commit at %v: verdict %q, toward %.4f ± %.4f over %d rounds, at %.2f ± %.2f of the way; want %q, toward %.3f over 12, at %v",
				c.at, p.Verdict(), p.Toward, p.HalfWidth, p.Rounds, way, half, c.want, wantToward, c.at)
		}
	}
}

// TestPlaceDirection: a figure that falls when worse (requests/s) is placed the same way.
func TestPlaceDirection(t *testing.T) {
	g, cand, b := rounds(12, 1, 0.005)
	inv := func(xs []float64) []float64 {
		out := make([]float64, len(xs))
		for i, x := range xs {
			out[i] = 1e6 / x
		}
		return out
	}
	if p := Place(inv(g), inv(cand), inv(b)); p.Verdict() != Bad || p.Toward <= 0 {
		t.Errorf("requests/s at bad's level: %q, toward %.4f; want bad, toward > 0", p.Verdict(), p.Toward)
	}
}

// TestPlaceWaits: nothing is decided before PlaceMinRounds rounds, however clear, nor when the
// launches vary more than the ends are apart.
func TestPlaceWaits(t *testing.T) {
	g, cand, b := rounds(PlaceMinRounds-1, 1, 0.001)
	if p := Place(g, cand, b); p.Verdict() != "" {
		t.Errorf("%d rounds: %q, want undecided", p.Rounds, p.Verdict())
	}
	g, cand, b = rounds(20, 1, 0.08)
	if p := Place(g, cand, b); p.Verdict() != "" {
		t.Errorf("launches off by 8 %%: %q (toward %.4f ± %.4f), want undecided", p.Verdict(), p.Toward, p.HalfWidth)
	}
	if p := Place([]float64{1}, []float64{1}, []float64{2}); p.Verdict() != "" || !math.IsInf(p.HalfWidth, 1) {
		t.Errorf("one round: %+v, want undecided with no interval", p)
	}
}

// TestPlaceZeroes: figures that can be 0 (errors) are placed on a linear scale.
func TestPlaceZeroes(t *testing.T) {
	good := []float64{0, 0, 1, 0, 0, 1}
	bad := []float64{10, 11, 9, 10, 12, 10}
	cand := []float64{9, 10, 10, 11, 10, 9}
	if p := Place(good, cand, bad); p.Verdict() != Bad {
		t.Errorf("errors at bad's level: %q (toward %.2f ± %.2f), want bad", p.Verdict(), p.Toward, p.HalfWidth)
	}
}

// TestRoundsToDecide: search 4 of docs/BISECT.md stopped at 100 rounds with its step at 0.27 ±
// 0.47 of the way; at that spread a commit at an end is told after about 154 rounds. A placement
// twice as narrow needs a quarter of them; nothing placed, none.
func TestRoundsToDecide(t *testing.T) {
	if got := RoundsToDecide(0.47, 100); got < 150 || got > 158 {
		t.Errorf("RoundsToDecide(0.47, 100) = %d, want about 154", got)
	}
	if a, b := RoundsToDecide(0.47, 100), RoundsToDecide(0.235, 100); b < a/4-2 || b > a/4+2 {
		t.Errorf("half the half-width: %d rounds, want a quarter of %d", b, a)
	}
	if got := RoundsToDecide(0.05, 100); got != PlaceMinRounds {
		t.Errorf("a narrow placement needs %d rounds, want the least, %d", got, PlaceMinRounds)
	}
	for _, half := range []float64{0, math.Inf(1)} {
		if got := RoundsToDecide(half, 100); got != 0 {
			t.Errorf("RoundsToDecide(%v, 100) = %d, want 0 (nothing placed)", half, got)
		}
	}
}
