//go:build measure

package agent

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/agent/sample"
	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/measure"
)

// TestCPUAccuracy runs a process that keeps its CPU at half a core and checks benchmarks/cpu/raw,
// averaged over the samples, is within 10% of 50.
func TestCPUAccuracy(t *testing.T) {
	if testing.Short() {
		t.Skip("takes ~3 s of half a core")
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ta := newTestAgent(t, Options{})
	ctx := context.Background()
	id := ta.submit(t, api.Job{Executable: self, Environment: map[string]string{helperEnv: "burn"},
		ReadyStateText: "burning", Interval: api.Duration(250 * time.Millisecond)})
	ta.waitState(t, id, api.StateRunning)
	const want = 10
	var raw, machine []float64
	deadline := time.Now().Add(15 * time.Second)
	for len(raw) < want {
		if time.Now().After(deadline) {
			t.Fatalf("only %d samples", len(raw))
		}
		time.Sleep(100 * time.Millisecond)
		ms, err := ta.c.Measurements(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		raw, machine = nil, nil
		for _, m := range ms.Measurements {
			switch m.Name {
			case measure.CPURaw:
				raw = append(raw, m.Value)
			case measure.CPU:
				machine = append(machine, m.Value)
			}
		}
	}
	if err := ta.c.Stop(ctx, id); err != nil {
		t.Fatal(err)
	}
	avg := func(xs []float64) float64 {
		s := 0.0
		for _, x := range xs {
			s += x
		}
		return s / float64(len(xs))
	}
	got := avg(raw)
	t.Logf("cpu/raw samples %.1f, average %.1f; cpu %.1f", raw, got, avg(machine))
	if got < 45 || got > 55 {
		t.Errorf("benchmarks/cpu/raw averaged %.1f, want 50 ± 5", got)
	}
	if r := avg(machine) * float64(sample.NumCPU()) / got; r < 0.99 || r > 1.01 {
		t.Errorf("benchmarks/cpu is not cpu/raw divided by the cores (ratio %.3f)", r)
	}
}
