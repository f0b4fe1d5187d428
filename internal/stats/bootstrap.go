package stats

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// DefaultResamples is the bootstrap resample count the gates use.
const DefaultResamples = 2000

// Interval is a two-sided confidence interval.
type Interval struct {
	Low, High float64
	Level     float64 // for example 0.95
}

// BootstrapRatioCI is the percentile bootstrap confidence interval of mean(head)/mean(base): each
// resample draws both samples independently with replacement. The same seed gives the same
// interval. resamples <= 0 means DefaultResamples.
func BootstrapRatioCI(base, head []float64, level float64, resamples int, seed uint64) (Interval, error) {
	if len(base) == 0 || len(head) == 0 {
		return Interval{}, fmt.Errorf("bootstrap: empty sample (%d and %d values)", len(base), len(head))
	}
	if level <= 0 || level >= 1 {
		return Interval{}, fmt.Errorf("bootstrap: confidence level %g not in (0, 1)", level)
	}
	if resamples <= 0 {
		resamples = DefaultResamples
	}
	rng := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	ratios := make([]float64, 0, resamples)
	for range resamples {
		b := resampleMean(rng, base)
		if b == 0 {
			continue
		}
		ratios = append(ratios, resampleMean(rng, head)/b)
	}
	if len(ratios) == 0 {
		return Interval{}, fmt.Errorf("bootstrap: base mean is zero in every resample")
	}
	slices.Sort(ratios)
	tail := (1 - level) / 2
	return Interval{Low: quantileSorted(ratios, tail), High: quantileSorted(ratios, 1-tail), Level: level}, nil
}

func resampleMean(rng *rand.Rand, xs []float64) float64 {
	s := 0.0
	for range xs {
		s += xs[rng.IntN(len(xs))]
	}
	return s / float64(len(xs))
}

// quantileSorted interpolates linearly between the order statistics of sorted xs.
func quantileSorted(xs []float64, q float64) float64 {
	pos := q * float64(len(xs)-1)
	lo := int(math.Floor(pos))
	hi := min(lo+1, len(xs)-1)
	return xs[lo] + (pos-float64(lo))*(xs[hi]-xs[lo])
}
