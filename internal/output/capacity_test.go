package output

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/crankshaft/crankshaft/internal/capacity"
	"github.com/crankshaft/crankshaft/internal/results"
)

// TestCapacityOutput: the capacity output prints a search as crank capacity always has (the
// steps' table and chart, then the answer: capacity.WriteTable and Summary, byte for byte), and a
// matrix's result file as its capacities side by side (capacity.WriteVariants).
func TestCapacityOutput(t *testing.T) {
	search := capacity.Result{Rate: 938, FailedAt: 969, SLOs: []string{"load: http/latency/99 < 20"}, FailedSLO: []string{"p99"},
		Steps: []capacity.Step{{Asked: 938, Achieved: 937, Latency99: 11.4, ServerCPU: 51, Pass: true},
			{Asked: 969, Achieved: 965, Latency99: 21.6, ServerCPU: 52, Failed: []string{"p99"}}}}
	write := func(doc any) string {
		t.Helper()
		b, err := json.Marshal(doc)
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		o, err := New(Capacity, Params{Stdout: &out})
		if err != nil {
			t.Fatal(err)
		}
		if err := o.Write(t.Context(), Run{Result: &results.Result{Capacity: b}}); err != nil {
			t.Fatal(err)
		}
		return out.String()
	}
	var want bytes.Buffer
	capacity.WriteTable(&want, search)
	want.WriteString(search.Summary() + "\n")
	if got := write(search); got != want.String() {
		t.Errorf("search:\n%s\nwant:\n%s", got, want.String())
	}
	matrix := []capacity.Named{{Variant: "work=1ms", Result: search}, {Variant: "work=2ms", Result: capacity.Result{Rate: 469, FailedAt: 484}}}
	want.Reset()
	capacity.WriteVariants(&want, matrix)
	if got := write(map[string]any{"variants": matrix}); got != want.String() || !strings.Contains(got, "0.50x") {
		t.Errorf("matrix:\n%s\nwant:\n%s", got, want.String())
	}
}
