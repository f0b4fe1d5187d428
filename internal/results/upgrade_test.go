package results

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/measure"
)

// TestUpgradeCPUPerRequest: a result file written when CPU per request was milliseconds reads back
// in microseconds (results, iterations, spread, metadata), so that crank compare of an old and a
// new file is not off by 1000; a file already in µs is left as it is.
func TestUpgradeCPUPerRequest(t *testing.T) {
	old := &Result{JobResults: JobResults{Jobs: map[string]*JobResult{"application": {
		Results:    map[string]float64{measure.CPUPerRequest: 0.00113, measure.CPU: 40},
		Metadata:   []api.Metadata{{Name: measure.CPUPerRequest, Unit: measure.UnitMs, Format: "n4"}, {Name: measure.CPU, Unit: measure.UnitPercent}},
		Iterations: []map[string]float64{{measure.CPUPerRequest: 0.001}, {measure.CPUPerRequest: 0.00126}},
		Spread:     map[string]Spread{measure.CPUPerRequest: {N: 2, Mean: 0.00113, Stdev: 0.0002, CV: 17.7, Min: 0.001, Max: 0.00126}},
	}}}}
	path := filepath.Join(t.TempDir(), "old.json")
	if err := WriteFile(path, old); err != nil {
		t.Fatal(err)
	}
	r, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	jr := r.JobResults.Jobs["application"]
	near := func(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }
	if !near(jr.Results[measure.CPUPerRequest], 1.13) || !near(jr.Iterations[1][measure.CPUPerRequest], 1.26) ||
		!near(jr.Spread[measure.CPUPerRequest].Max, 1.26) || jr.Spread[measure.CPUPerRequest].CV != 17.7 || jr.Results[measure.CPU] != 40 {
		t.Errorf("upgraded %v %v %+v", jr.Results, jr.Iterations, jr.Spread)
	}
	if md := jr.Metadata[0]; md.Unit != measure.UnitUs {
		t.Errorf("metadata %+v, want the catalog's µs", md)
	}
	if Upgrade(r) {
		t.Error("a second upgrade changed a file already in µs")
	}
	_ = os.Remove(path)
}

// TestNotMeasuredShownAndKept: a figure the tool printed but not as a value shows in the table as
// not measured, with why, and survives the JSON.
func TestNotMeasuredShownAndKept(t *testing.T) {
	r := &Result{JobResults: JobResults{Jobs: map[string]*JobResult{"load": {
		Results:     map[string]float64{measure.Latency50: 1.13},
		Metadata:    []api.Metadata{{Name: measure.Latency50, Unit: measure.UnitMs, Format: "n2"}},
		NotMeasured: map[string]string{measure.Latency99: "wrk printed 0.00us"},
	}}}}
	path := filepath.Join(t.TempDir(), "r.json")
	if err := WriteFile(path, r); err != nil {
		t.Fatal(err)
	}
	back, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	rows := Rows(back.JobResults.Jobs["load"])
	if len(rows) != 2 || rows[1][0] != measure.Latency99 || rows[1][1] != "not measured: wrk printed 0.00us" {
		t.Errorf("rows %v", rows)
	}
}
