package results

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/crankshaft/crankshaft/internal/loadtool"
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

// A load that asked a rate gets load/rate-reached, and one under 95 % of its rate is said: bombardier
// -r 1000 that did 843 req/s (the run); one at 990 is not.
func TestShortOfRate(t *testing.T) {
	jobs := map[string]*JobResult{
		"load":   {Results: map[string]float64{measure.RPS: 843, measure.LoadAskedRate: 1000, measure.Requests: 8430}},
		"kept":   {Results: map[string]float64{measure.RPS: 990, measure.LoadAskedRate: 1000, measure.Requests: 9900}},
		"closed": {Results: map[string]float64{measure.RPS: 50000, measure.Requests: 500000}},
	}
	Derive(jobs)
	if got := jobs["load"].Results[measure.LoadRateReached]; got != 84.3 {
		t.Errorf("load: rate reached %v, want 84.3", got)
	}
	if got := jobs["kept"].Results[measure.LoadRateReached]; got != 99 {
		t.Errorf("kept: rate reached %v, want 99", got)
	}
	if _, ok := jobs["closed"].Results[measure.LoadRateReached]; ok {
		t.Errorf("closed: a rate reached without a rate asked")
	}
	got := ShortOfRate(jobs)
	if len(got) != 1 || !strings.Contains(got[0], "load reached 843 of the 1,000 req/s asked") || !strings.Contains(got[0], "84.3 %") {
		t.Errorf("ShortOfRate = %q", got)
	}
}

// The table says, under a load's figures, what its latency is; the JSON keeps the model.
func TestLoadToolNote(t *testing.T) {
	m, _ := loadtool.Of("wrk", "wrk", nil)
	r := &Result{JobResults: JobResults{Jobs: map[string]*JobResult{"load": {
		Results: map[string]float64{measure.Latency99: 4.2}, LoadTool: &m}}}}
	var b strings.Builder
	if err := WriteTables(&b, r, []string{"load"}); err != nil {
		t.Fatal(err)
	}
	if want := "load latency (wrk, closed loop): closed loop: not corrected for coordinated omission"; !strings.Contains(b.String(), want) {
		t.Errorf("table:\n%s\nwant a line with %q", b.String(), want)
	}
	data, err := json.Marshal(r.JobResults.Jobs["load"])
	if err != nil {
		t.Fatal(err)
	}
	var back JobResult
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if back.LoadTool == nil || back.LoadTool.Latency != loadtool.BackFilled || !strings.Contains(string(data), `"loadTool"`) {
		t.Errorf("JSON %s read back as %+v", data, back.LoadTool)
	}
}
