package results

import (
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/measure"
)

// TestMachineCPU: the headline CPU is the mean of the measured benchmarks/cpu samples (the warm-up
// left out, not the summary's highest sample); the cores come from the environment, else from
// cpu/raw over cpu; said "46 % of the machine (0.9 of 2 cores)".
func TestMachineCPU(t *testing.T) {
	at := time.Unix(0, 0)
	tl := []api.Measurement{
		{Name: measure.CPU, Timestamp: at, Value: 90, Warmup: true},
		{Name: measure.CPU, Timestamp: at, Value: 40},
		{Name: measure.CPU, Timestamp: at, Value: 52},
		{Name: measure.CPURaw, Timestamp: at, Value: 160},
		{Name: measure.CPURaw, Timestamp: at, Value: 208},
	}
	jr := &JobResult{Results: map[string]float64{measure.CPU: 90}, Measurements: [][]api.Measurement{tl}}
	if mean, cores, ok := MachineCPU(jr); !ok || mean != 46 || cores != 4 {
		t.Errorf("without environment.cores: %v %v %v, want 46 %% of 4 cores (cpu/raw over cpu)", mean, cores, ok)
	}
	jr.Environment = map[string]any{"cores": 2.0}
	mean, cores, ok := MachineCPU(jr)
	if !ok || mean != 46 || cores != 2 {
		t.Errorf("with environment.cores 2: %v %v %v", mean, cores, ok)
	}
	if got := CPUText(mean, cores); got != "46 % of the machine (0.9 of 2 cores)" {
		t.Errorf("CPUText %q", got)
	}
	if got := CPUText(12.4, 0); got != "12 % of the machine" {
		t.Errorf("CPUText without cores %q", got)
	}
	if _, _, ok := MachineCPU(&JobResult{Results: map[string]float64{}}); ok {
		t.Error("a job without CPU has a headline CPU")
	}
}
