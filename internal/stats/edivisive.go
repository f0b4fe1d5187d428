package stats

import (
	"math"
	"math/rand/v2"
	"slices"
)

// Defaults of the change-point detection, shared with the command-line flags.
const (
	DefaultPValue   = 0.001
	DefaultWindow   = 50
	DefaultMinSize  = 2
	MaxPermutations = 4999
)

// Options tune DetectChangePoints. The zero value means the defaults.
type Options struct {
	// PValue is the significance level a change point must reach in the final (merge) test.
	PValue float64
	// Magnitude is the smallest relative change |after/before - 1| a change point must show.
	Magnitude float64
	// Window is the sliding window length of the split step (Otava's window_len); windows advance
	// by half their length. It also caps how many points on each side the merge test compares.
	Window int
	// MinSize is the fewest points a segment may have on either side of a change point.
	MinSize int
	// Permutations caps the permutation count of a test; 0 derives it from the test's level
	// (ceil(1/level) - 1, at least 99) so that the smallest attainable p-value reaches the level.
	Permutations int
	// Seed makes the permutations, and so the result, reproducible.
	Seed uint64
}

func (o Options) withDefaults() Options {
	if o.PValue <= 0 {
		o.PValue = DefaultPValue
	}
	if o.Window <= 0 {
		o.Window = DefaultWindow
	}
	if o.MinSize <= 0 {
		o.MinSize = DefaultMinSize
	}
	o.Window = max(o.Window, 2*o.MinSize)
	return o
}

// ChangePoint is a point where the series' distribution changes: Index is the first point of the
// new regime. Before and After are the means of the segments either side (up to the neighbouring
// change points), Change is After/Before - 1 (0 when Before is 0).
type ChangePoint struct {
	Index     int     `json:"index"`
	Before    float64 `json:"before"`
	After     float64 `json:"after"`
	StdBefore float64 `json:"stdBefore"`
	StdAfter  float64 `json:"stdAfter"`
	Change    float64 `json:"change"`
	PValue    float64 `json:"pValue"`
}

// DetectChangePoints finds change points in series with E-divisive means, as Apache Otava (formerly
// Hunter) applies it:
//
//  1. Split: slide a window of opts.Window points over the series (advancing by half a window, or
//     to the last change found); in each window bisect hierarchically, each new candidate being the
//     split that maximises the energy divergence Q over the window's current segments, kept while a
//     permutation test (values shuffled within each segment) finds it significant at a relaxed
//     level (10x PValue below 0.05, as Otava's first pass). These are the weak change points.
//  2. Merge: repeatedly drop the weakest change point (largest p-value above PValue, else smallest
//     relative change below Magnitude), re-testing its neighbours, until every one passes. The
//     merge test is a permutation test between the segments adjacent to the point (at most Window
//     values each side), whose null statistic is the best split of the shuffled pair, so choosing
//     the split by maximising divergence does not inflate significance.
//
// The result is sorted by index and is the same for the same series and options.
func DetectChangePoints(series []float64, opts Options) []ChangePoint {
	opts = opts.withDefaults()
	if len(series) < 2*opts.MinSize {
		return nil
	}
	d := &detector{
		series: series,
		opts:   opts,
		rng:    rand.New(rand.NewPCG(opts.Seed, 0xda3e39cb94b95bdb)),
	}
	return d.merge(d.split())
}

type detector struct {
	series  []float64
	opts    Options
	rng     *rand.Rand
	en      energy
	scratch []float64
}

// splitLevel is the relaxed first-pass level, as Otava relaxes it.
func (d *detector) splitLevel() float64 {
	p := d.opts.PValue
	switch {
	case p < 0.05:
		return p * 10
	case p < 0.5:
		return p * 2
	}
	return p
}

// permutations is the permutation count for a test at level.
func (d *detector) permutations(level float64) int {
	n := max(99, int(math.Ceil(1/level))-1)
	if d.opts.Permutations > 0 {
		n = d.opts.Permutations
	}
	return min(n, MaxPermutations)
}

// split runs the windowed hierarchical E-divisive pass and returns the weak change points, sorted.
func (d *detector) split() []int {
	var found []int
	n, step := len(d.series), max(1, d.opts.Window/2)
	for start := 0; start < n; {
		end := min(start+d.opts.Window, n)
		last := 0
		for _, cp := range d.window(start, end) {
			if !slices.Contains(found, cp) {
				found = append(found, cp)
			}
			last = max(last, cp)
		}
		if end == n {
			break
		}
		start = max(last, start+step)
	}
	slices.Sort(found)
	return found
}

// window bisects series[start:end] while the best next split is significant at the split level.
func (d *detector) window(start, end int) []int {
	level := d.splitLevel()
	perms := d.permutations(level)
	cps := []int{}
	for {
		bounds := segments(start, end, cps)
		cp, q := d.bestOver(d.series, bounds)
		if cp < 0 {
			return cps
		}
		if p := d.segmentsPValue(bounds, q, level, perms); p > level {
			return cps
		}
		cps = append(cps, cp)
		slices.Sort(cps)
	}
}

// segments cuts [start, end) at the sorted points cps.
func segments(start, end int, cps []int) [][2]int {
	out := make([][2]int, 0, len(cps)+1)
	prev := start
	for _, cp := range cps {
		out = append(out, [2]int{prev, cp})
		prev = cp
	}
	return append(out, [2]int{prev, end})
}

// bestOver returns the absolute index of the best split over all segments of values and its Q.
func (d *detector) bestOver(values []float64, bounds [][2]int) (int, float64) {
	best, bestQ := -1, math.Inf(-1)
	for _, b := range bounds {
		tau, q := d.en.bestSplit(values[b[0]:b[1]], d.opts.MinSize, false)
		if tau >= 0 && q > bestQ {
			best, bestQ = b[0]+tau, q
		}
	}
	return best, bestQ
}
