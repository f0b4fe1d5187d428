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
