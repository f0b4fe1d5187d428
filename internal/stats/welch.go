package stats

import (
	"fmt"
	"math"
)

// TTest is the outcome of Welch's unequal-variance t-test of y against x.
type TTest struct {
	T      float64 // (mean(y) - mean(x)) / standard error
	DF     float64 // Welch-Satterthwaite degrees of freedom
	PValue float64 // two-sided
}

// WelchT runs Welch's two-sided t-test. Each sample needs at least two values. When both samples
// have no spread the test degenerates: equal means give p = 1, different means p = 0.
func WelchT(x, y []float64) (TTest, error) {
	t, _, err := welch(x, y)
	return t, err
}

// welch is WelchT and its standard error of mean(y) - mean(x).
func welch(x, y []float64) (TTest, float64, error) {
	if len(x) < 2 || len(y) < 2 {
		return TTest{}, 0, fmt.Errorf("welch t-test: need at least 2 values per sample, have %d and %d", len(x), len(y))
	}
	nx, ny := float64(len(x)), float64(len(y))
	vx, vy := Variance(x)/nx, Variance(y)/ny
	diff := Mean(y) - Mean(x)
	se2 := vx + vy
	if se2 == 0 {
		if diff == 0 {
			return TTest{T: 0, DF: nx + ny - 2, PValue: 1}, 0, nil
		}
		return TTest{T: math.Copysign(math.Inf(1), diff), DF: nx + ny - 2, PValue: 0}, 0, nil
	}
	t := diff / math.Sqrt(se2)
	df := se2 * se2 / (vx*vx/(nx-1) + vy*vy/(ny-1))
	return TTest{T: t, DF: df, PValue: studentTTwoSided(t, df)}, math.Sqrt(se2), nil
}

// PairedT is the two-sided t-test of the mean of y[i] - x[i], the i-th values of the two samples
// measured together (at the same time): what moves both alike drops out. fitted is the degrees of
// freedom a model spent on the values before (0 for values as measured; as MeanCIFitted). The
// samples need the same length, at least 2 + fitted. No spread in the differences: p is 1 when
// they are all 0, else 0.
func PairedT(x, y []float64, fitted int) (TTest, error) {
	d, err := PairedDifferences(x, y, fitted)
	if err != nil {
		return TTest{}, err
	}
	return MeanT(d, fitted), nil
}

// PairedDifferences is y[i] - x[i] for PairedT and the intervals taken from the same pairs: the
// samples need the same length, at least 2 + fitted.
func PairedDifferences(x, y []float64, fitted int) ([]float64, error) {
	if len(x) != len(y) || len(x) < 2+fitted {
		return nil, fmt.Errorf("paired t-test: need two samples of the same length, at least %d, have %d and %d", 2+fitted, len(x), len(y))
	}
	d := make([]float64, len(x))
	for i := range x {
		d[i] = y[i] - x[i]
	}
	return d, nil
}

// MeanT is the two-sided t-test that the mean of d is 0 (d: PairedT's differences), fitted as
// PairedT's; d needs at least 2 + fitted values (else its p is 1).
func MeanT(d []float64, fitted int) TTest {
	n, df := float64(len(d)), float64(len(d)-1-fitted)
	if df < 1 {
		return TTest{DF: df, PValue: 1}
	}
	mean, se := Mean(d), math.Sqrt(Variance(d)*(n-1)/df/n)
	if se == 0 {
		if mean == 0 {
			return TTest{DF: df, PValue: 1}
		}
		return TTest{T: math.Copysign(math.Inf(1), mean), DF: df}
	}
	t := mean / se
	return TTest{T: t, DF: df, PValue: studentTTwoSided(t, df)}
}
