package gate

import (
	"math/rand/v2"
	"testing"

	"github.com/crankshaft/crankshaft/internal/measure"
)

// Iterations that ran side by side share the machine's drift: 8 % from one to the next, the same
// for both, and head 3 % slower in each. Compared unpaired the drift hides the change; paired, the
// test sees it, and its interval of the ratio, from the same t, holds the 0.97.
func TestComparePairedSeesThroughSharedDrift(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 31))
	base := newResult(rng, 10, metricSpec{measure.RPS, 100000, 0.08})
	head := newResult(rng, 0, metricSpec{measure.RPS, 0, 0})
	hj, bj := head.JobResults.Jobs["load"], base.JobResults.Jobs["load"]
	sum := 0.0
	for _, it := range bj.Iterations {
		v := it[measure.RPS] * 0.97 * (1 + 0.005*rng.NormFloat64())
		hj.Iterations = append(hj.Iterations, map[string]float64{measure.RPS: v})
		sum += v
	}
	hj.Results[measure.RPS] = sum / float64(len(hj.Iterations))
	compare := func(paired bool) Comparison {
		rep, err := CompareResults(base, head, CompareOptions{Metrics: []string{measure.RPS}, Threshold: 0.01, Paired: paired}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return rep.Services[0].Rows[0].Compared[0]
	}
	un, pa := compare(false), compare(true)
	if un.Verdict != VerdictInconclusive || un.Test == TestPaired {
		t.Errorf("unpaired: %s by %q (p %.3f), want inconclusive by an unpaired test", un.Verdict, un.Test, un.PValue)
	}
	if pa.Verdict != VerdictRegressed || pa.Test != TestPaired || pa.PValue > 0.001 {
		t.Errorf("paired: %s by %q (p %.4f), want regressed by %q at p <= 0.001", pa.Verdict, pa.Test, pa.PValue, TestPaired)
	}
	if !pa.HasCI || pa.CI.Low > 0.97 || pa.CI.High < 0.97 || pa.CI.High-pa.CI.Low > 0.01 {
		t.Errorf("paired interval of the ratio: %+v, want about 0.97 within 1 %%", pa.CI)
	}
}
