package gate

import (
	"math"

	"github.com/crankshaft/crankshaft/internal/stats"
)

// estimate fills the comparison's test, p-value and interval of the ratio head/base when both
// sides have MinIterations, all three from one t-test at level 1 - alpha: Welch's t on the logs of
// the iterations (paired, CompareOptions.Paired: the t of the differences of their logs), whose
// interval of the difference of the mean logs is, exponentiated, the interval of the ratio. With
// a value that is not positive there is no ratio scale: the same tests on the values, the
// interval of the difference taken relative to the base's mean.
func estimate(c *Comparison, base, head []float64, opts CompareOptions) {
	c.Iterations = [2]int{len(base), len(head)}
	if len(base) < MinIterations || len(head) < MinIterations {
		return
	}
	level := 1 - opts.Alpha
	c.Logs = stats.AllPositive(base) && stats.AllPositive(head)
	x, y := base, head
	if c.Logs {
		x, y = stats.Logs(base), stats.Logs(head)
	}
	var d stats.Difference
	var err error
	if opts.Paired && len(base) == len(head) {
		var diffs []float64
		if diffs, err = stats.PairedDifferences(x, y, opts.PairedFitted); err == nil {
			d, err = stats.MeanDifference(diffs, level, opts.PairedFitted)
		}
		c.Test = TestPaired
	} else {
		d, err = stats.WelchDifference(x, y, level)
		c.Test = TestWelch
	}
	if err != nil {
		c.Test = TestNone
		return
	}
	ratio := func(v float64) float64 { return math.Exp(v) }
	if !c.Logs {
		scale := math.Abs(stats.Mean(base))
		ratio = func(v float64) float64 {
			if v == 0 {
				return 1
			}
			return 1 + v/scale // ±Inf over a base mean of 0
		}
	}
	ci := d.Interval()
	c.PValue, c.Ratio, c.HasCI = d.PValue, ratio(d.Estimate), true
	c.CI = stats.Interval{Low: ratio(ci.Low), High: ratio(ci.High), Level: level}
}

// decide turns a comparison into a verdict, with band [1/(1+threshold), 1+threshold] of the ratio:
//   - regressed or improved (changed, direction unknown): the interval excludes 1 (p < alpha) and
//     the estimate lies past the band; the direction tells which;
//   - unchanged: the interval lies within the band, so the change is smaller than the threshold;
//   - inconclusive: anything else, and no interval at all (fewer than MinIterations on a side).
//
// Iterations that do not vary give the degenerate interval of the estimate alone.
func decide(dir Direction, c Comparison, threshold float64) Verdict {
	if !c.HasCI {
		return VerdictInconclusive
	}
	up, down := 1+threshold, 1/(1+threshold)
	significant := c.CI.Low > 1 || c.CI.High < 1
	switch {
	case significant && (c.Ratio > up || c.Ratio < down):
		if dir == DirectionUnknown {
			return VerdictChanged
		}
		if (dir == LowerIsBetter) == (c.Ratio > 1) {
			return VerdictRegressed
		}
		return VerdictImproved
	case c.CI.Low >= down && c.CI.High <= up:
		return VerdictUnchanged
	}
	return VerdictInconclusive
}

// needed is, for an inconclusive comparison with an interval, the iterations per side that would
// likely settle it, and whether its estimate sits at the threshold. The interval's half-width h
// shrinks as 1/sqrt(n); it must fall below the distance that decides: from the estimate d to the
// band's edge (threshold δ, on the log scale ln(1+δ)) when d lies within the band, so that the
// interval fits inside it; |d| when d lies past it, so that the interval excludes no change. With
// n iterations now (the harmonic mean of both sides'), n (h / target)² would do, Student's t
// taken as it is now (more iterations lower it: a slight overestimate). 0 when nothing can be said.
func needed(c Comparison, threshold float64) (n int, atThreshold bool) {
	if !c.HasCI || c.Iterations[0] == 0 || c.Iterations[1] == 0 {
		return 0, false
	}
	var h, d, edge float64
	if c.Logs {
		h, d, edge = (math.Log(c.CI.High)-math.Log(c.CI.Low))/2, math.Log(c.Ratio), math.Log1p(threshold)
	} else {
		h, d, edge = (c.CI.High-c.CI.Low)/2, c.Ratio-1, threshold
		if d < 0 {
			edge = 1 - 1/(1+threshold)
		}
	}
	if !(h > 0) || math.IsInf(h, 0) || math.IsNaN(d) || math.IsInf(d, 0) {
		return 0, false
	}
	target := math.Abs(d)
	if target < edge {
		target = edge - target
	}
	nb, nh := float64(c.Iterations[0]), float64(c.Iterations[1])
	now := 2 * nb * nh / (nb + nh)
	if c.Test == TestPaired {
		now = nb
	}
	// A hair of rounding is not one iteration more; NaN, +Inf (target 0) and too many are capped.
	need := math.Ceil(stats.SamplesToShrink(now, h, target) - 1e-9)
	if !(need < MaxNeeded) {
		return MaxNeeded, math.Abs(d) < edge && math.Abs(d) > 0.75*edge
	}
	return int(max(need, math.Floor(now)+1)), false
}
