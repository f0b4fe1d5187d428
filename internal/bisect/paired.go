package bisect

import (
	"math"

	"github.com/crankshaft/crankshaft/internal/stats"
)

// PlaceLevel and PlaceMinRounds are what a placement needs to decide. Looked at after every
// round (a search stops a step as soon as it is decided), a 95 % interval from the 3rd round
// crosses to the wrong side too often: simulated with a 3 % change, launches that vary by 4.5 %
// and at most 60 rounds, it named the wrong end in 7.6 % of steps; a 99 % interval from the 5th
// round, in 1.5 % (0.5 % when launches vary by 3 %). Stricter, not infallible: replayed on the
// rounds of a search here that took a commit adding 3 % for good (docs/BISECT.md), it decided
// good too, after 8 rounds (after 4 at 95 % from the 3rd).
const (
	PlaceLevel     = 0.99
	PlaceMinRounds = 5
)

// Placement is where a commit measured in rounds beside both ends lies between them, from each
// round's own three figures: the commit's distance past the ends' midpoint in that round (on a
// ratio scale when every figure is positive: log c - (log g + log b)/2), signed so that positive is
// toward the bad end, and the mean of those over the rounds with its PlaceLevel interval. Each round
// compares figures of the same minutes, so a drift of the machine moves all three alike and drops
// out; what is left is each launch's own spread.
type Placement struct {
	Rounds int
	// Toward is the mean distance past the midpoint toward bad (a ratio's log, about a fraction
	// when small: 0.014 is 1.4 %); HalfWidth its PlaceLevel interval's.
	Toward, HalfWidth float64
	// Span is how far apart the ends are over these rounds, on the same scale (> 0 once placed).
	Span float64
}

// Way is where the commit lies as a share of the way from good (0) to bad (1), and its interval's
// half-width on that scale: 0.5 is the midpoint.
func (p Placement) Way() (way, half float64) {
	if p.Span <= 0 {
		return 0.5, math.Inf(1)
	}
	return 0.5 + p.Toward/p.Span, p.HalfWidth / p.Span
}

// Place pairs the i-th figure of each end with the commit's i-th (the same round) and says where
// the commit lies. The direction from good to bad is that of their means over these rounds; with
// fewer than two rounds, or ends whose means are equal, nothing is decided (no interval).
func Place(good, cand, bad []float64) Placement { return PlaceFitted(good, cand, bad, 0) }

// PlaceFitted is Place of figures from which a model spent fitted degrees of freedom before (the
// positions' costs Unbias took out: its second result): the interval's spread and t are over the
// rounds left (stats.MeanCIFitted).
func PlaceFitted(good, cand, bad []float64, fitted int) Placement {
	n := min(len(good), len(cand), len(bad))
	undecided := Placement{Rounds: n, HalfWidth: math.Inf(1)}
	if n < 2 {
		return undecided
	}
	good, cand, bad = good[:n], cand[:n], bad[:n]
	if stats.AllPositive(good) && stats.AllPositive(cand) && stats.AllPositive(bad) {
		good, cand, bad = stats.Logs(good), stats.Logs(cand), stats.Logs(bad)
	}
	dir := stats.Mean(bad) - stats.Mean(good)
	if dir == 0 {
		return undecided
	}
	d := make([]float64, n)
	for i := range n {
		d[i] = math.Copysign(1, dir) * (cand[i] - (good[i]+bad[i])/2)
	}
	p := Placement{Rounds: n, Span: math.Abs(dir)}
	p.Toward, p.HalfWidth = stats.MeanCIFitted(d, PlaceLevel, fitted)
	return p
}

// RoundsToDecide is about how many rounds, at the spread of the rounds that gave a placement's
// interval (half-width half, on the way's scale, over rounds), place a commit lying at one of the
// ends wholly on its side of the midpoint 4 times in 5: a single change puts every commit at 0 or 1
// of the way, half a way from the midpoint. ((t + z) s / 0.5)², s a round's standard deviation of
// the way (half √rounds / t), t the PlaceLevel quantile, z the 80th percentile of the normal. 0 when
// nothing was placed.
func RoundsToDecide(half float64, rounds int) int {
	if rounds < 2 || !(half > 0) || math.IsInf(half, 0) {
		return 0
	}
	t := stats.TQuantile(1-PlaceLevel, float64(rounds-1))
	s := half * math.Sqrt(float64(rounds)) / t
	const z80 = 0.8416
	return max(PlaceMinRounds, int(math.Ceil(math.Pow((t+z80)*s/0.5, 2))))
}

// Verdict is Bad when the commit is significantly nearer the bad end (its interval wholly past the
// midpoint toward bad), Good when significantly nearer the good end, "" while undecided.
func (p Placement) Verdict() string {
	switch {
	case p.Rounds < PlaceMinRounds:
		return ""
	case p.Toward-p.HalfWidth > 0:
		return Bad
	case p.Toward+p.HalfWidth < 0:
		return Good
	}
	return ""
}
