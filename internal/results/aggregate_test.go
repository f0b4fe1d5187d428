package results

import (
	"bytes"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/api"
)

func TestApply(t *testing.T) {
	vals := []float64{4, 1, 3, 2, 10}
	cases := map[api.Operation]float64{
		api.OpMax: 10, api.OpMin: 1, api.OpSum: 20, api.OpAvg: 4, api.OpMedian: 3,
		api.OpFirst: 4, api.OpLast: 10, api.OpDelta: 6, api.OpCount: 5, "p50": 3, "p100": 10, "p0": 1, "p75": 4,
	}
	for op, want := range cases {
		got, ok := Apply(op, vals)
		if !ok || math.Abs(got-want) > 1e-9 {
			t.Errorf("%s: got %v (%v), want %v", op, got, ok, want)
		}
	}
	if _, ok := Apply("bogus", vals); ok {
		t.Error("unknown op accepted")
	}
	if _, ok := Apply(api.OpMax, nil); ok {
		t.Error("empty values accepted")
	}
	if got, _ := Apply("p90", []float64{0, 10}); math.Abs(got-9) > 1e-9 {
		t.Errorf("p90 interpolation: %v", got)
	}
}

func TestSummarizeSkipsWarmupAndReducesAcrossEndpoints(t *testing.T) {
	md := []api.Metadata{
		{Name: "http/rps/mean", Aggregate: api.OpMax, Reduce: api.OpSum},
		{Name: "http/latency/99", Aggregate: api.OpMax, Reduce: api.OpMax},
		{Name: "benchmarks/cpu", Aggregate: api.OpAvg, Reduce: api.OpMax},
		{Name: "absent", Aggregate: api.OpMax, Reduce: api.OpMax},
	}
	t0 := time.Unix(0, 0)
	s := func(name string, v float64, warm bool) api.Measurement {
		return api.Measurement{Name: name, Value: v, Timestamp: t0, Warmup: warm}
	}
	a := []api.Measurement{s("http/rps/mean", 100, false), s("http/latency/99", 5, false),
		s("benchmarks/cpu", 99, true), s("benchmarks/cpu", 40, false), s("benchmarks/cpu", 60, false)}
	b := []api.Measurement{s("http/rps/mean", 50, false), s("http/latency/99", 7, false)}
	got, err := Summarize(md, [][]api.Measurement{a, b})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{"http/rps/mean": 150, "http/latency/99": 7, "benchmarks/cpu": 50}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %v, want %v", k, got[k], v)
		}
	}
}

func TestAverageAndFormat(t *testing.T) {
	avg := Average([]map[string]float64{{"a": 1, "b": 4}, {"a": 3}})
	if avg["a"] != 2 || avg["b"] != 4 {
		t.Errorf("average: %v", avg)
	}
	for in, want := range map[float64]string{1234567.891: "1,234,568", -1234.6: "-1,235", 12: "12"} {
		if got := Format(in, "n0"); got != want {
			t.Errorf("Format(%v) = %q, want %q", in, got, want)
		}
	}
	if got := Format(3.14159, "n2"); got != "3.14" {
		t.Errorf("n2: %q", got)
	}
}

func TestWriteTablesOrdersByMetadata(t *testing.T) {
	r := &Result{JobResults: JobResults{Jobs: map[string]*JobResult{"load": {
		Results:  map[string]float64{"http/rps/mean": 12345.6, "zeta": 1},
		Metadata: []api.Metadata{{Name: "http/rps/mean", Format: "n0", Unit: "req/s"}},
	}}}}
	var buf bytes.Buffer
	if err := WriteTables(&buf, r, []string{"load"}); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	i, j := strings.Index(out, "http/rps/mean"), strings.Index(out, "zeta")
	if i < 0 || j < i || !strings.Contains(out, "12,346") || !strings.Contains(out, "req/s") {
		t.Errorf("table:\n%s", out)
	}
}
