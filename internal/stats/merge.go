package stats

import (
	"math"
	"slices"
)

// merge is Otava's merge step over the weak change points cps (sorted), with the permutation
// pair test in place of its t-test.
func (d *detector) merge(cps []int) []ChangePoint {
	cache := map[[3]int]float64{}
	for len(cps) > 0 {
		points := d.describe(cps, cache)
		weakest := -1
		for i, c := range points {
			if c.PValue > d.opts.PValue && (weakest < 0 || c.PValue > points[weakest].PValue) {
				weakest = i
			}
		}
		if weakest < 0 {
			i := smallestChange(points)
			if math.Abs(points[i].Change) >= d.opts.Magnitude {
				return points
			}
			weakest = i
		}
		cps = slices.Delete(cps, weakest, weakest+1)
	}
	return nil
}

func smallestChange(points []ChangePoint) int {
	best := 0
	for i, c := range points {
		if math.Abs(c.Change) < math.Abs(points[best].Change) {
			best = i
		}
	}
	return best
}

// describe computes each change point's p-value (cached by its neighbourhood) and the statistics
// of the segments either side, bounded by the neighbouring change points.
func (d *detector) describe(cps []int, cache map[[3]int]float64) []ChangePoint {
	out := make([]ChangePoint, len(cps))
	for i, cp := range cps {
		prev, next := 0, len(d.series)
		if i > 0 {
			prev = cps[i-1]
		}
		if i+1 < len(cps) {
			next = cps[i+1]
		}
		a, b := max(prev, cp-d.opts.Window), min(next, cp+d.opts.Window)
		key := [3]int{a, cp, b}
		p, ok := cache[key]
		if !ok {
			p = d.pairPValue(a, cp, b, d.opts.PValue, d.permutations(d.opts.PValue))
			cache[key] = p
		}
		left, right := d.series[prev:cp], d.series[cp:next]
		c := ChangePoint{Index: cp, Before: Mean(left), After: Mean(right),
			StdBefore: StdDev(left), StdAfter: StdDev(right), PValue: p}
		if c.Before != 0 {
			c.Change = c.After/c.Before - 1
		}
		out[i] = c
	}
	return out
}
