package parsers

import (
	"math"
	"strings"
	"testing"

	"github.com/crankshaft/crankshaft/internal/measure"
)

func TestImplausible(t *testing.T) {
	cases := []struct {
		name   string
		values map[string]float64
		want   map[string]string // figure -> a part of the reason
	}{
		{"a clean run", map[string]float64{measure.LatencyMean: 1.1, measure.Latency50: 1, measure.Latency99: 3, measure.LatencyMax: 9, measure.RPS: 1000}, nil},
		{"p99 printed 0 (pipelined wrk)", map[string]float64{measure.LatencyMean: 1.1, measure.Latency50: 1, measure.Latency99: 0, measure.WrkLatency99: 0},
			map[string]string{measure.Latency99: "0 while http/latency/50 is 1 ms", measure.WrkLatency99: "0 while"}},
		{"every percentile 0 after a mean", map[string]float64{measure.LatencyMean: 0.5, measure.Latency50: 0},
			map[string]string{measure.Latency50: "0 while http/latency/mean is 0.5 ms"}},
		{"p90 below p75", map[string]float64{measure.Latency50: 1, measure.Latency75: 2, measure.Latency90: 1.5, measure.Latency99: 4},
			map[string]string{measure.Latency90: "1.5 ms, below http/latency/75's 2 ms"}},
		{"rounding is not a fall", map[string]float64{measure.Latency50: 1.00, measure.Latency75: 0.995, measure.Latency99: 0}, // all 0: an idle tool
			map[string]string{measure.Latency99: "0 while http/latency/75 is 0.995 ms"}},
		{"not a number", map[string]float64{measure.RPS: math.NaN(), measure.Requests: -1},
			map[string]string{measure.RPS: "NaN", measure.Requests: "-1"}},
		{"a run with no latency at all", map[string]float64{measure.Latency50: 0, measure.Latency99: 0, measure.RPS: 0}, nil},
	}
	for _, c := range cases {
		values := c.values
		got := Implausible(values)
		if len(got) != len(c.want) {
			t.Errorf("%s: not measured %v, want %v", c.name, got, c.want)
			continue
		}
		for name, part := range c.want {
			if !strings.Contains(got[name], part) {
				t.Errorf("%s: %s: reason %q, want it to say %q", c.name, name, got[name], part)
			}
			if _, ok := values[name]; ok {
				t.Errorf("%s: %s still in the values", c.name, name)
			}
		}
	}
}
