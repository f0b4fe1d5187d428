package stats

import (
	"math"
	"slices"
)

// Median is the median of xs (NaN for none); xs is not modified.
func Median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return sortedMedian(s)
}

// sortedMedian is the median of s, sorted and not empty.
func sortedMedian(s []float64) float64 {
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// MedianCI is the median of xs and a distribution-free confidence interval of it at level (0.95:
// 95 %), from the order statistics: the k-th smallest and the k-th largest value, with k the
// largest rank such that the chance that fewer than k of n independent draws fall below the true
// median is at most (1-level)/2 (a binomial with p = 1/2). It assumes only independent draws of
// one distribution, not a normal one: a saturated server's cost per request is skewed. ok is
// false when n is too small for any interval at level (under 6 values at 95 %: the whole range
// covers the median only 1 - 2/2^n of the time).
func MedianCI(xs []float64, level float64) (median, lo, hi float64, ok bool) {
	n := len(xs)
	if n == 0 {
		return math.NaN(), math.NaN(), math.NaN(), false
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	median = sortedMedian(s)
	tail := (1 - level) / 2
	// below is P(X < k+1) for X ~ Binomial(n, 1/2), summed as k grows: the chance that the
	// k+1-th smallest value lies above the median.
	k, below, term := 0, 0.0, math.Pow(0.5, float64(n)) // term: P(X = j), from j = 0
	for j := 0; j < n; j++ {
		if below+term > tail {
			break
		}
		below += term
		k = j + 1
		term *= float64(n-j) / float64(j+1)
	}
	if k == 0 {
		return median, math.NaN(), math.NaN(), false
	}
	return median, s[k-1], s[n-k], true
}
