package runner

import (
	"math"
	"testing"
)

// TestPrecisionOf: the loads' figure is added up per iteration, and the run is precise enough once
// the 95 % interval of the mean is within the target, from the third iteration on.
func TestPrecisionOf(t *testing.T) {
	its := func(vs ...float64) []map[string]float64 {
		var out []map[string]float64
		for _, v := range vs {
			out = append(out, map[string]float64{"http/rps/mean": v})
		}
		return out
	}
	per := map[string][]map[string]float64{"load": its(49, 51, 50), "load2": its(50, 50, 50)}
	p := precisionOf(per, []string{"load", "load2"}, "http/rps/mean", 0.02)
	// sums 99, 101, 100: sd 1, se 0.577, t(2) 4.303: ± 2.48, 2.5 % of 100
	if p.Iterations != 3 || p.Mean != 100 || math.Abs(p.HalfWidth-2.484) > 0.01 || p.Met {
		t.Errorf("%+v: want 3 iterations, mean 100 ± 2.48, not met at 2 %%", p)
	}
	if p := precisionOf(per, []string{"load", "load2"}, "http/rps/mean", 0.03); !p.Met {
		t.Errorf("%+v: want met at 3 %%", p)
	}
	if p := precisionOf(map[string][]map[string]float64{"load": its(100, 100)}, []string{"load"}, "http/rps/mean", 0.02); p.Met {
		t.Errorf("two identical iterations: %+v, want not met before %d", p, MinAutoIterations)
	}
}
