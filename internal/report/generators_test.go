package report

import (
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/measure"
	"github.com/crankshaft/crankshaft/internal/results"
)

// TestGeneratorLines: a load split across two generators is drawn as one line per generator,
// named by its endpoint, and their total second by second.
func TestGeneratorLines(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	tl := func(off time.Duration, vs ...float64) []api.Measurement {
		var out []api.Measurement
		for i, v := range vs {
			out = append(out, api.Measurement{Name: measure.BuiltinRPSPerSecond, Timestamp: t0.Add(time.Duration(i+1)*time.Second + off), Value: v})
		}
		return out
	}
	jr := &results.JobResult{
		Measurements: [][]api.Measurement{tl(0, 100, 110, 120), tl(3*time.Millisecond, 200, 190, 180)},
		Generators:   []results.Generator{{Endpoint: "http://a:5010"}, {Endpoint: "http://b:5010"}},
	}
	run := Run{Label: "r", Result: &results.Result{JobResults: results.JobResults{Jobs: map[string]*results.JobResult{"load": jr}}}, Services: []string{"load"}}
	ss := seriesFor(charts[0], []Run{run})
	if len(ss) != 3 {
		t.Fatalf("%d lines, want 3: %+v", len(ss), ss)
	}
	want := []string{"r: load on http://a:5010", "r: load on http://b:5010", "r: load, all generators"}
	for i, s := range ss {
		if s.Label != want[i] {
			t.Errorf("line %d: %q, want %q", i, s.Label, want[i])
		}
	}
	for i, p := range ss[2].Points {
		if p.Y != 300 || p.X != float64(i) {
			t.Errorf("total at %d: %+v, want 300 at %d s", i, p, i)
		}
	}
}
