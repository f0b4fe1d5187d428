package results

import (
	"testing"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/crankshaft/crankshaft/internal/measure"
)

// LatencyFigures gives every percentile the histogram has, p95 included (the built-in generator
// and a merge of generators report it): latencies of 1 to 100 ms, one each.
func TestLatencyFiguresHasP95(t *testing.T) {
	h := hdrhistogram.New(1, 60_000_000, 3)
	for ms := int64(1); ms <= 100; ms++ {
		if err := h.RecordValue(ms * 1000); err != nil {
			t.Fatal(err)
		}
	}
	f := LatencyFigures(h)
	want := map[string]float64{measure.Latency50: 50, measure.Latency75: 75, measure.Latency90: 90,
		measure.Latency95: 95, measure.Latency99: 99, measure.LatencyMax: 100}
	for name, w := range want {
		if got := f[name]; got < w-0.1 || got > w+0.1 {
			t.Errorf("%s = %v, want %v", name, got, w)
		}
	}
}
