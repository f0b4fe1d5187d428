package main

import (
	"fmt"
	"math"

	"github.com/crankshaft/crankshaft/internal/stats"
)

// Verdicts on a target: a claim about the thing measured, made only on what the rounds show.
const (
	verdictYes        = "yes"
	verdictNo         = "no"
	verdictCannotTell = "cannot tell"
	verdictNone       = "-" // no target, or nothing measured
)

// maxRoundsToTell bounds the estimate of the rounds that would tell: past it, a row is said to sit
// on its target.
const maxRoundsToTell = 1000

// Met is the row's verdict on its target, judged on the 95 % interval of its ratio rather than on
// the ratio alone: "yes" when the whole interval is at or under the target, "no" when it is all
// above, "cannot tell" when it holds the target, when the row has too few rounds for an interval,
// or when its figures include disturbed rounds (which bias a ratio, bench/notes.md); "-" with no
// target or no figure. Why says what would tell.
func (r rowResult) Met() string {
	switch {
	case r.Target == 0 || r.Skipped != "" || math.IsNaN(r.Ratio):
		return verdictNone
	case !r.Clean || math.IsNaN(r.Hi) || r.straddles():
		return verdictCannotTell
	case r.Hi <= r.Target:
		return verdictYes
	default:
		return verdictNo
	}
}

// straddles says whether the row's interval holds its target: the rounds so far do not tell on
// which side of it the ratio is.
func (r rowResult) straddles() bool {
	return r.Target > 0 && r.Lo <= r.Target && r.Target < r.Hi
}

// Why is, for a row the bench cannot tell about, why and what would tell; "" otherwise.
func (r rowResult) Why() string {
	if r.Met() != verdictCannotTell {
		return ""
	}
	n := len(r.RoundRatios)
	switch {
	case !r.Clean:
		return "its figures include disturbed rounds (other work on its CPUs): a run on a quiet machine would tell"
	case math.IsNaN(r.Hi):
		return fmt.Sprintf("%d rounds give no 95 %% interval (6 do): more rounds would tell", n)
	}
	holds := fmt.Sprintf("its 95 %% interval %s-%s holds %s", ratio(r.Lo), ratio(r.Hi), ratio(r.Target))
	need := roundsToTell(n, r.Ratio, r.Lo, r.Hi, r.Target)
	if need > maxRoundsToTell {
		return fmt.Sprintf("%s: the ratio sits at the target, and more than %d rounds would be needed to tell", holds, maxRoundsToTell)
	}
	return fmt.Sprintf("%s: about %d rounds in all would tell (--runs, --max-rounds)", holds, need)
}

// roundsToTell estimates how many rounds would move the side of an interval (lo, hi, from n
// rounds) that faces target past it: an interval's width shrinks as one over the square root of
// the rounds, and the side is the one between the ratio and the target (the interval of a median
// is seldom symmetric). It is maxRoundsToTell+1 when the ratio is on the target.
func roundsToTell(n int, ratio, lo, hi, target float64) int {
	distance, facing := math.Abs(ratio-target), hi-ratio
	if target < ratio {
		facing = ratio - lo
	}
	if !(distance > 0) {
		return maxRoundsToTell + 1
	}
	need := math.Ceil(stats.SamplesToShrink(float64(n), facing, distance))
	return int(min(need, maxRoundsToTell+1))
}

// metAllBelow is the verdict on a target every figure must stay under, from a few figures too
// few for an interval: "yes" when all are under it, "no" when none is, "cannot tell" otherwise;
// "-" with none.
func metAllBelow(xs []float64, limit float64) string {
	below := 0
	for _, x := range xs {
		if x < limit {
			below++
		}
	}
	switch {
	case len(xs) == 0:
		return verdictNone
	case below == len(xs):
		return verdictYes
	case below == 0:
		return verdictNo
	default:
		return verdictCannotTell
	}
}

// minSlices is the fewest figures a mean's interval is taken over, as a ratio's needs 6 rounds.
const minSlices = 6

// metMeanBelow is the verdict on a mean that must stay under limit, from the figures xs of equal
// slices of a window (percent): "yes" when the 95 % interval of their mean (Student's t) is all
// under it, "no" when all of it is at or over, "cannot tell" when it holds the limit or there are
// fewer than minSlices figures, with why and what would tell; "-" with none.
func metMeanBelow(xs []float64, limit float64) (verdict, why string) {
	if len(xs) == 0 {
		return verdictNone, ""
	}
	if len(xs) < minSlices {
		return verdictCannotTell, fmt.Sprintf("%d slices of the window give no 95 %% interval (%d do): a longer window would tell (--agent-window)", len(xs), minSlices)
	}
	mean, half := stats.MeanCI95(xs)
	switch {
	case mean+half < limit:
		return verdictYes, ""
	case mean-half >= limit:
		return verdictNo, ""
	}
	return verdictCannotTell, fmt.Sprintf("its 95 %% interval %.2f-%.2f%% holds %g%%: a longer window would tell (--agent-window)", mean-half, mean+half, limit)
}
