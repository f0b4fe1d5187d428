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
	if len(x) < 2 || len(y) < 2 {
		return TTest{}, fmt.Errorf("welch t-test: need at least 2 values per sample, have %d and %d", len(x), len(y))
	}
	nx, ny := float64(len(x)), float64(len(y))
	vx, vy := Variance(x)/nx, Variance(y)/ny
	diff := Mean(y) - Mean(x)
	se2 := vx + vy
	if se2 == 0 {
		if diff == 0 {
			return TTest{T: 0, DF: nx + ny - 2, PValue: 1}, nil
		}
		return TTest{T: math.Copysign(math.Inf(1), diff), DF: nx + ny - 2, PValue: 0}, nil
	}
	t := diff / math.Sqrt(se2)
	df := se2 * se2 / (vx*vx/(nx-1) + vy*vy/(ny-1))
	return TTest{T: t, DF: df, PValue: studentTTwoSided(t, df)}, nil
}
