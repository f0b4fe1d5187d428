package results

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/measure"
)

// TestFiniteKeepsTheRun: two 1e308 samples summed give +Inf, and requests and bad responses of
// +Inf give an error rate of NaN; the JSON encoder refused the result (nothing written). Finite
// moves them to notMeasured with why, and the rest is written and shown (issue 41, MEDIUM 6).
func TestFiniteKeepsTheRun(t *testing.T) {
	md := []api.Metadata{{Name: "hostile/huge", Aggregate: api.OpSum, Reduce: api.OpSum},
		{Name: measure.Requests, Aggregate: api.OpMax, Reduce: api.OpSum},
		{Name: measure.BadResponses, Aggregate: api.OpMax, Reduce: api.OpSum},
		{Name: "hostile/fine", Aggregate: api.OpMax, Reduce: api.OpSum}}
	at := time.Unix(1, 0).UTC()
	tl := []api.Measurement{{Name: "hostile/huge", Timestamp: at, Value: 1e308}, {Name: "hostile/huge", Timestamp: at, Value: 1e308},
		{Name: measure.Requests, Timestamp: at, Value: math.MaxFloat64}, {Name: measure.BadResponses, Timestamp: at, Value: math.MaxFloat64},
		{Name: "hostile/fine", Timestamp: at, Value: 42}}
	sum, err := Summarize(md, [][]api.Measurement{tl, tl})
	if err != nil {
		t.Fatal(err)
	}
	jr := &JobResult{Results: sum, Metadata: md, Measurements: [][]api.Measurement{tl, append(tl, api.Measurement{Name: "x", Value: math.NaN()})},
		Iterations: []map[string]float64{{"hostile/fine": 42, "it/inf": math.Inf(-1)}},
		Spread:     map[string]Spread{"hostile/fine": {N: 2, Mean: 42, Stdev: math.Inf(1)}},
		Generators: []Generator{{Endpoint: "http://g1", Results: map[string]float64{measure.RPS: math.Inf(1), "ok": 1}}},
		Values:     map[string]any{"script/inf": math.Inf(1), "text": "kept"}}
	jobs := map[string]*JobResult{"load": jr}
	Derive(jobs)
	r := &Result{JobResults: JobResults{Jobs: jobs}, Precision: &Precision{Metric: measure.RPS, Mean: math.NaN()},
		Thresholds: []ThresholdCheck{{Metric: "hostile/huge", Condition: "< 5", Value: math.Inf(1), Found: true}},
		StartTime:  at}
	r.JobResults.Diagnostics = []Diagnostic{{Kind: "client-bound", Figures: []Figure{{Service: "load", Name: "x", Value: math.NaN()}, {Name: "y", Value: 1}}}}
	if _, err := Marshal(r); err == nil {
		t.Fatal("the encoder took +Inf: the test no longer shows the finding")
	}

	notes := Finite(r)

	b, err := Marshal(r)
	if err != nil {
		t.Fatalf("after Finite: %v", err)
	}
	var back struct {
		JobResults struct {
			Jobs map[string]struct {
				Results     map[string]any    `json:"results"`
				NotMeasured map[string]string `json:"notMeasured"`
				Generators  []struct {
					NotMeasured map[string]string `json:"notMeasured"`
				} `json:"generators"`
			} `json:"jobs"`
		} `json:"jobResults"`
	}
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	got := back.JobResults.Jobs["load"]
	if got.Results["hostile/fine"] != 84.0 || got.Results["text"] != "kept" {
		t.Errorf("results %v, want hostile/fine 84 and text kept", got.Results)
	}
	for name, why := range map[string]string{
		"hostile/huge":    "+Inf, not a finite number: the agents' values (aggregate sum, reduce sum) overflow",
		measure.Requests:  "+Inf, not a finite number: the agents' values (aggregate max, reduce sum)",
		measure.ErrorRate: "NaN, not a finite number: the agents' values (derived from other figures)",
		"script/inf":      "+Inf",
		"it/inf":          "iteration 1: -Inf",
	} {
		if !strings.HasPrefix(got.NotMeasured[name], why) {
			t.Errorf("notMeasured[%s] = %q, want it to begin %q", name, got.NotMeasured[name], why)
		}
		if _, has := got.Results[name]; has {
			t.Errorf("%s still in results", name)
		}
	}
	if len(got.Generators) != 1 || !strings.HasPrefix(got.Generators[0].NotMeasured[measure.RPS], "+Inf") {
		t.Errorf("generators %+v, want http/rps/mean not measured", got.Generators)
	}
	if r.Precision != nil || r.Thresholds[0].Found || len(r.JobResults.Diagnostics[0].Figures) != 1 || len(jr.Spread) != 0 || len(jr.Measurements[1]) != len(tl) {
		t.Errorf("precision %v, threshold %+v, diagnosis %+v, spread %v, samples %d: want each non-finite one left out",
			r.Precision, r.Thresholds[0], r.JobResults.Diagnostics[0].Figures, jr.Spread, len(jr.Measurements[1]))
	}
	want := []string{"load: hostile/huge: not measured: +Inf", "load: x: 1 samples of endpoint 2 dropped", "precision of http/rps/mean", "threshold hostile/huge < 5"}
	for _, w := range want {
		if !strings.Contains(strings.Join(notes, "\n"), w) {
			t.Errorf("notes %q lack %q", notes, w)
		}
	}
	var table bytes.Buffer
	if err := WriteTables(&table, r, []string{"load"}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(table.String(), "not measured: +Inf, not a finite number") {
		t.Errorf("table does not say hostile/huge is not measured:\n%s", table.String())
	}
}
