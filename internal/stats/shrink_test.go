package stats

import (
	"math"
	"testing"
)

// TestSamplesToShrink: 10 samples whose interval reaches 0.15 from the estimate need 22.5 for it
// to reach only 0.10; a width already under the distance needs fewer than now.
func TestSamplesToShrink(t *testing.T) {
	for _, c := range []struct{ n, width, distance, want float64 }{
		{10, 0.15, 0.10, 22.5},
		{17, 0.14, 0.10, 33.32},
		{16, 0.05, 0.10, 4},
	} {
		if got := SamplesToShrink(c.n, c.width, c.distance); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("SamplesToShrink(%v, %v, %v) = %v, want %v", c.n, c.width, c.distance, got, c.want)
		}
	}
	if got := SamplesToShrink(10, 0.1, 0); !math.IsInf(got, 1) {
		t.Errorf("distance 0: %v, want +Inf", got)
	}
}
