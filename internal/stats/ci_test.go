package stats

import (
	"math"
	"testing"
)

func TestMeanCI95(t *testing.T) {
	for df, want := range map[float64]float64{1: 12.706, 2: 4.303, 4: 2.776, 9: 2.262, 29: 2.045, 1000: 1.962} {
		if got := TQuantile(0.05, df); math.Abs(got-want) > 0.002 {
			t.Errorf("t(0.975, %v) = %.4f, want %.3f", df, got, want)
		}
	}
	for df, want := range map[float64]float64{2: 9.925, 3: 5.841, 10: 3.169, 1000: 2.581} {
		if got := TQuantile(0.01, df); math.Abs(got-want) > 0.002 {
			t.Errorf("t(0.995, %v) = %.4f, want %.3f", df, got, want)
		}
	}
	mean, half := MeanCI95([]float64{98, 100, 102, 100})
	// sd = sqrt(8/3) = 1.633, se = 0.8165, t(3) = 3.182
	if mean != 100 || math.Abs(half-2.598) > 0.002 {
		t.Errorf("mean %v ± %v, want 100 ± 2.598", mean, half)
	}
	if _, half := MeanCI95([]float64{5}); !math.IsInf(half, 1) {
		t.Errorf("one sample: ± %v, want +Inf", half)
	}
}

func TestMeanCIFitted(t *testing.T) {
	xs := []float64{98, 100, 102, 100}
	// One degree of freedom spent before: spread 8/2 = 4 (sd 2), se 1, t(2) = 4.303.
	if mean, half := MeanCIFitted(xs, 0.95, 1); mean != 100 || math.Abs(half-4.303) > 0.002 {
		t.Errorf("fitted 1: %v ± %v, want 100 ± 4.303", mean, half)
	}
	if _, half := MeanCIFitted(xs, 0.95, 3); !math.IsInf(half, 1) {
		t.Errorf("no degree of freedom left: ± %v, want +Inf", half)
	}
}

// TestMedianCIOrderStatistics: the interval's ends are the ranks a binomial table gives (n = 6:
// the whole range, covering 96.9 %; n = 12: the 3rd smallest and largest, 96.1 %; n = 25: the 8th,
// 95.7 %), and under 6 values there is none at 95 %.
func TestMedianCIOrderStatistics(t *testing.T) {
	seq := func(n int) []float64 {
		xs := make([]float64, n)
		for i := range xs {
			xs[i] = float64(n - i) // descending: MedianCI must sort
		}
		return xs
	}
	for _, c := range []struct {
		n      int
		lo, hi float64
	}{{6, 1, 6}, {12, 3, 10}, {25, 8, 18}} {
		med, lo, hi, ok := MedianCI(seq(c.n), 0.95)
		if !ok || lo != c.lo || hi != c.hi || med != float64(c.n+1)/2 {
			t.Errorf("n %d: median %v, interval %v-%v (ok %v), want %v, %v-%v", c.n, med, lo, hi, ok, float64(c.n+1)/2, c.lo, c.hi)
		}
	}
	if med, _, _, ok := MedianCI(seq(5), 0.95); ok || med != 3 {
		t.Errorf("n 5: median %v ok %v, want 3 and no interval", med, ok)
	}
	if _, _, _, ok := MedianCI(nil, 0.95); ok {
		t.Error("no values: an interval")
	}
}
