package results

import (
	"strings"
	"testing"

	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/measure"
)

// TestSingleRunSpread: one run's averaged figure says the spread of its samples, http/rps/mean
// that of the built-in generator's per-second rates; two samples, several endpoints or a figure
// over iterations do not (the iterations' spread is said instead).
func TestSingleRunSpread(t *testing.T) {
	const counter = "runtime-counter/requests-per-second"
	samples := func(name string, vs ...float64) []api.Measurement {
		var out []api.Measurement
		out = append(out, api.Measurement{Name: name, Value: 1e9, Warmup: true}) // left out
		for _, v := range vs {
			out = append(out, api.Measurement{Name: name, Value: v})
		}
		return out
	}
	md := []api.Metadata{{Name: counter, Aggregate: api.OpAvg, Format: "n0"}, {Name: measure.RPS, Aggregate: api.OpMax, Format: "n0"}}
	one := &JobResult{Metadata: md, Results: map[string]float64{counter: 100, measure.RPS: 100},
		Measurements: [][]api.Measurement{append(samples(counter, 90, 100, 110), samples(measure.BuiltinRPSPerSecond, 95, 100, 105, 100)...)}}
	got := rowValues(one)
	if got[counter] != "100 ± 10.0% over 3 samples" {
		t.Errorf("counter %q, want its samples' spread", got[counter])
	}
	if !strings.HasPrefix(got[measure.RPS], "100 ± 4.1% per second (4 s)") {
		t.Errorf("http/rps/mean %q, want the per-second rates' spread", got[measure.RPS])
	}

	two := &JobResult{Metadata: md, Results: map[string]float64{counter: 100},
		Measurements: [][]api.Measurement{samples(counter, 90, 110)}}
	if v := rowValues(two)[counter]; v != "100" {
		t.Errorf("two samples: %q, want no spread", v)
	}
	twoEndpoints := &JobResult{Metadata: md, Results: map[string]float64{counter: 200},
		Measurements: [][]api.Measurement{samples(counter, 90, 100, 110), samples(counter, 90, 100, 110)}}
	if v := rowValues(twoEndpoints)[counter]; v != "200" {
		t.Errorf("two endpoints: %q, want no spread (a sum of means)", v)
	}
	iterations := &JobResult{Metadata: md, Results: map[string]float64{counter: 100},
		Spread:       map[string]Spread{counter: {N: 3, CV: 5}},
		Measurements: [][]api.Measurement{samples(counter, 90, 100, 110)}}
	if v := rowValues(iterations)[counter]; v != "100 ± 5.0%" {
		t.Errorf("over iterations: %q, want the iterations' spread only", v)
	}
}

func rowValues(jr *JobResult) map[string]string {
	out := map[string]string{}
	for _, r := range Rows(jr) {
		out[r[0]] = r[1]
	}
	return out
}
