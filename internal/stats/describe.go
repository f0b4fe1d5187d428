package stats

import "math"

// Mean is the arithmetic mean of xs (NaN when xs is empty).
func Mean(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// Variance is the unbiased sample variance of xs (0 when fewer than two values).
func Variance(xs []float64) float64 {
	if len(xs) < 2 {
		return 0
	}
	m := Mean(xs)
	s := 0.0
	for _, x := range xs {
		s += (x - m) * (x - m)
	}
	return s / float64(len(xs)-1)
}

// AllPositive reports whether every value is above 0 (then a ratio scale, Logs, applies).
func AllPositive(xs []float64) bool {
	for _, x := range xs {
		if !(x > 0) {
			return false
		}
	}
	return true
}

// Logs is the natural logarithm of each value.
func Logs(xs []float64) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = math.Log(x)
	}
	return out
}

// StdDev is the sample standard deviation of xs.
func StdDev(xs []float64) float64 { return math.Sqrt(Variance(xs)) }

// MeanCI95 is the mean of xs and the half-width of its 95 % confidence interval (Student's t with
// n-1 degrees of freedom): the true mean lies within mean ± half with 95 % confidence, as far as
// the samples are independent and near normal. half is +Inf with fewer than 2 samples.
func MeanCI95(xs []float64) (mean, half float64) { return MeanCI(xs, 0.95) }

// MeanCI is MeanCI95 at another confidence level (0.99: 99 %).
func MeanCI(xs []float64, level float64) (mean, half float64) { return MeanCIFitted(xs, level, 0) }

// MeanCIFitted is MeanCI of values from which a model spent fitted degrees of freedom before
// (residuals of a fit): their spread is over n-1-fitted, and so is Student's t. half is +Inf when
// no degree of freedom is left.
func MeanCIFitted(xs []float64, level float64, fitted int) (mean, half float64) {
	mean = Mean(xs)
	df := len(xs) - 1 - fitted
	if df < 1 {
		return mean, math.Inf(1)
	}
	sd := math.Sqrt(Variance(xs) * float64(len(xs)-1) / float64(df))
	return mean, TQuantile(1-level, float64(df)) * sd / math.Sqrt(float64(len(xs)))
}

// TQuantile is Student's t at which the two-sided tail is tail (for 0.05: 12.71 with 1 degree of
// freedom, 1.96 for many), found by bisection on the distribution's two-sided tail.
func TQuantile(tail, df float64) float64 {
	lo, hi := 0.0, 1e6
	for range 200 {
		mid := (lo + hi) / 2
		if studentTTwoSided(mid, df) > tail {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}
