package stats

import "fmt"

// Interval is a two-sided confidence interval.
type Interval struct {
	Low, High float64
	Level     float64 // for example 0.95
}

// Difference is a difference of means with its two-sided test and its confidence interval, both
// from the one standard error and the one Student's t: the interval at Level excludes 0 exactly
// when PValue < 1 - Level, so the test and the interval can never disagree.
type Difference struct {
	TTest
	Estimate float64 // mean(y) - mean(x), or the mean of paired differences
	Half     float64 // half-width of the interval at Level: Estimate ± Half (+Inf when no degree of freedom is left)
	Level    float64
}

// Interval is Estimate ± Half.
func (d Difference) Interval() Interval {
	return Interval{Low: d.Estimate - d.Half, High: d.Estimate + d.Half, Level: d.Level}
}

// WelchDifference is Welch's t-test of y against x (WelchT) and the interval of mean(y) - mean(x)
// at level, with Welch-Satterthwaite's degrees of freedom. Samples with no spread give a
// degenerate interval: the difference itself (Half 0).
func WelchDifference(x, y []float64, level float64) (Difference, error) {
	if !(level > 0 && level < 1) {
		return Difference{}, fmt.Errorf("welch interval: confidence level %g not in (0, 1)", level)
	}
	t, se, err := welch(x, y)
	if err != nil {
		return Difference{}, err
	}
	half := 0.0
	if se > 0 {
		half = TQuantile(1-level, t.DF) * se
	}
	return Difference{TTest: t, Estimate: Mean(y) - Mean(x), Half: half, Level: level}, nil
}

// MeanDifference is MeanT of d (PairedDifferences' differences, fitted as MeanCIFitted) and the
// interval of its mean at level, from the same spread and degrees of freedom.
func MeanDifference(d []float64, level float64, fitted int) (Difference, error) {
	if !(level > 0 && level < 1) {
		return Difference{}, fmt.Errorf("paired interval: confidence level %g not in (0, 1)", level)
	}
	t := MeanT(d, fitted)
	mean, half := MeanCIFitted(d, level, fitted) // 0 when the differences have no spread
	return Difference{TTest: t, Estimate: mean, Half: half, Level: level}, nil
}
