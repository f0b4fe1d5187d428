package duet

import (
	"math"

	"github.com/crankshaft/crankshaft/internal/bisect"
	"github.com/crankshaft/crankshaft/internal/gate"
	"github.com/crankshaft/crankshaft/internal/stats"
)

// Look is the gate's judgement of its rounds so far: crank compare's paired test and verdict on
// the rounds with the positions' own costs taken out, and the power of the run.
type Look struct {
	Rounds int
	// Alpha is the level of this look's test (the plan's Alpha over its looks).
	Alpha float64
	// Comparison is crank compare's (gate.Judge): the estimate of head/base (Ratio), its interval
	// at 1 - Alpha, the p-value, the verdict and, when inconclusive, the rounds that would tell.
	Comparison gate.Comparison
	// Base and Head are each side's mean over the rounds, positions taken out.
	Base, Head float64
	// SD is the standard deviation of a round's paired difference (of the logs when every
	// figure is positive: about a relative one), over the degrees of freedom left; Fitted those
	// spent on the positions (bisect.Unbias).
	SD     float64
	Fitted int
	// MDE is the smallest true change this run's test finds 95 % of the time:
	// (t(1 - Alpha/2) + t(0.95)) · SD/√Rounds, as a relative change the bad way (a rise of a
	// cost, a fall of a throughput). Detectable is the smallest
	// regression the gate calls one 95 % of the time: a change must also pass the threshold, so
	// the larger of MDE and the threshold plus t(0.95) standard errors.
	MDE, Detectable float64
	// Position is what position 2 of a round costs over position 1 (relative; 0 when the
	// positions could not be told apart yet, or the figures are not all positive).
	Position float64
}

// Verdict is the look's verdict.
func (l Look) Verdict() gate.Verdict { return l.Comparison.Verdict }

// Decided says whether the look settles the gate: anything but inconclusive.
func (l Look) Decided() bool { return l.Verdict() != gate.VerdictInconclusive }

// Judge judges base and head (a figure a round each, the i-th of both from the same round, base
// in position Position(0, i, 2)) at level alpha against threshold, as crank compare judges paired
// iterations.
func Judge(dir gate.Direction, base, head []float64, threshold, alpha float64) Look {
	n := min(len(base), len(head))
	base, head = base[:n], head[:n]
	un, fitted := bisect.Unbias([][]float64{base, head})
	l := Look{Rounds: n, Alpha: alpha, Fitted: fitted, Base: stats.Mean(un[0]), Head: stats.Mean(un[1])}
	l.Comparison = gate.Judge(dir, un[0], un[1], gate.CompareOptions{Threshold: threshold, Alpha: alpha,
		Paired: true, PairedFitted: fitted})
	logs := l.Comparison.Logs
	l.Position = positionCost(base, un[0], logs)
	x, y := un[0], un[1]
	if logs {
		x, y = stats.Logs(x), stats.Logs(y)
	}
	d, err := stats.PairedDifferences(x, y, fitted)
	if err != nil || n-1-fitted < 1 {
		l.SD, l.MDE, l.Detectable = math.Inf(1), math.Inf(1), math.Inf(1)
		return l
	}
	df := n - 1 - fitted
	l.SD = math.Sqrt(stats.Variance(d) * float64(n-1) / float64(df))
	mde := MDE(l.SD, n, alpha, fitted)
	edge := math.Log1p(threshold) + stats.TQuantile(0.10, float64(df))*l.SD/math.Sqrt(float64(n))
	if !logs { // a difference over the base's mean: the threshold on that scale
		edge = threshold + stats.TQuantile(0.10, float64(df))*l.SD/math.Sqrt(float64(n))/math.Abs(l.Base)
		mde /= math.Abs(l.Base)
		l.MDE, l.Detectable = mde, max(mde, edge)
		return l
	}
	l.MDE, l.Detectable = badWay(dir, mde), badWay(dir, max(mde, edge))
	return l
}

// badWay is a change of x on the log scale, the bad way, as a relative size: a rise of
// e^x - 1 when lower is better, a fall of 1 - e^-x when higher is.
func badWay(dir gate.Direction, x float64) float64 {
	if dir == gate.HigherIsBetter {
		return -math.Expm1(-x)
	}
	return math.Expm1(x)
}

// MDE is the minimum detectable effect of a paired t-test at level alpha (two-sided) with 95 %
// power, on the scale of the differences: (t(1 - alpha/2, df) + t(0.95, df)) · sd/√n, df the
// n - 1 - fitted degrees of freedom left (+Inf when none is).
func MDE(sd float64, n int, alpha float64, fitted int) float64 {
	df := float64(n - 1 - fitted)
	if df < 1 {
		return math.Inf(1)
	}
	return (stats.TQuantile(alpha, df) + stats.TQuantile(0.10, df)) * sd / math.Sqrt(float64(n))
}

// positionCost is what the second position costs over the first, read from a side's figures as
// measured (raw) and with the positions' costs out (un): their ratio (difference) in a round is
// that round's position's cost. 0 when nothing was taken out.
func positionCost(raw, un []float64, logs bool) float64 {
	var at [2]float64
	var seen [2]bool
	for r := range min(len(raw), len(un)) {
		k := bisect.Position(0, r, 2)
		switch {
		case logs && un[r] > 0:
			at[k], seen[k] = math.Log(raw[r]/un[r]), true
		case !logs:
			at[k], seen[k] = raw[r]-un[r], true
		}
	}
	if !seen[0] || !seen[1] {
		return 0
	}
	if logs {
		return math.Expm1(at[1] - at[0])
	}
	if m := stats.Mean(un); m != 0 {
		return (at[1] - at[0]) / math.Abs(m)
	}
	return 0
}
