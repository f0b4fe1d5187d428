package results

import (
	"bytes"
	"math"
	"strings"
	"testing"
)

func TestSpreadAndExclusion(t *testing.T) {
	its := []map[string]float64{{"rps": 100, "cpu": 50}, {"rps": 300}, {"rps": 200}, {"rps": 110}, {"rps": 90}}
	sp := SpreadOf([]float64{100, 110, 90})
	if sp.N != 3 || sp.Mean != 100 || math.Abs(sp.Stdev-10) > 1e-9 || math.Abs(sp.CV-10) > 1e-9 || sp.Min != 90 || sp.Max != 110 {
		t.Errorf("spread %+v", sp)
	}
	e := Exclusion{Low: 1, High: 1, Service: "load", Result: "rps"}
	keep, notes := e.Keep(map[string][]map[string]float64{"load": its}, len(its))
	if len(keep) != 3 || keep[0] != 0 || keep[1] != 2 || keep[2] != 3 {
		t.Fatalf("keep %v, want [0 2 3] (90 and 300 out)", keep)
	}
	want := "1/5: 100.00 - included|2/5: 300.00 - excluded|3/5: 200.00 - included|4/5: 110.00 - included|5/5: 90.00 - excluded"
	if strings.Join(notes, "|") != want {
		t.Errorf("notes %q", notes)
	}
	jr := &JobResult{}
	jr.Combine(its, keep)
	if jr.Results["rps"] != (100+200+110)/3.0 || jr.Spread["rps"].N != 3 || jr.Spread["cpu"].N != 1 || len(jr.Excluded) != 2 || len(jr.Iterations) != 5 {
		t.Errorf("combined %+v excluded %v", jr.Results, jr.Excluded)
	}
	var b bytes.Buffer
	WriteExclusionNotes(&b, e, notes)
	if !strings.Contains(b.String(), "Values of load->rps:") {
		t.Errorf("notes: %s", b.String())
	}
	// Nothing to exclude: every iteration kept.
	if keep, _ := (Exclusion{}).Keep(nil, 3); len(keep) != 3 {
		t.Errorf("no exclusion keeps %v", keep)
	}
	// A table cell over iterations is "mean ± CV".
	jr.Metadata = nil
	var tb bytes.Buffer
	if err := WriteTables(&tb, &Result{JobResults: JobResults{Jobs: map[string]*JobResult{"load": jr}}}, []string{"load"}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(tb.String(), "136.67 ± ") {
		t.Errorf("table:\n%s", tb.String())
	}
}

func TestDerive(t *testing.T) {
	jobs := map[string]*JobResult{
		"load":        {Results: map[string]float64{"http/rps/mean": 50000, "http/requests": 990, "http/requests/badresponses": 5, "http/requests/errors": 10}},
		"application": {Results: map[string]float64{"benchmarks/cpu/raw": 150}},
	}
	Derive(jobs)
	if got := jobs["load"].Results["http/requests/error-rate"]; math.Abs(got-1.5) > 1e-9 {
		t.Errorf("error rate %v, want 15 of 1000 = 1.5%%", got)
	}
	if got := jobs["application"].Results["benchmarks/cpu/per-request"]; math.Abs(got-30) > 1e-9 {
		t.Errorf("cpu per request %v µs, want 1.5 cores / 50,000 req/s = 30 µs", got)
	}
	if len(jobs["application"].Metadata) != 1 || jobs["application"].Metadata[0].Unit != "µs" {
		t.Errorf("metadata %+v", jobs["application"].Metadata)
	}
}
