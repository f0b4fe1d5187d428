//go:build measure

package e2e

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/diagnose"
	"github.com/crankshaft/crankshaft/internal/measure"
)

func mean(ms []api.Measurement) float64 {
	s := 0.0
	for _, m := range ms {
		s += m.Value
	}
	return s / float64(len(ms))
}

// TestCPUHalfCore runs, as a crank job built from testdata/burn, a program that keeps its CPU
// at half a core, and checks the agent measures 50% ± 10% in benchmarks/cpu/raw.
func TestCPUHalfCore(t *testing.T) {
	yml := writeFile(t, t.TempDir(), "burn.yml", fmt.Sprintf(`
jobs:
  burn:
    source: {localFolder: %q}
    buildCommand: go build -o burn .
    executable: ./burn
    arguments: -percent 50 -duration 6s
    readyStateText: burning
    waitForExit: true
    interval: 0.5
scenarios:
  burn:
    burner: {job: burn}
`, filepath.Join(testEnv.root, "internal/e2e/testdata/burn")))
	res := runJSON(t, "--config", yml, "--scenario", "burn")
	jr := res.JobResults.Jobs["burner"]
	if jr == nil {
		t.Fatalf("no burner job in %v", res.JobResults.Jobs)
	}
	raw, _ := samples(jr, measure.CPURaw)
	cpu, _ := samples(jr, measure.CPU)
	if len(raw) < 8 || len(cpu) != len(raw) {
		t.Fatalf("%d cpu/raw and %d cpu samples in 6 s at 0.5 s, want at least 8 of each", len(raw), len(cpu))
	}
	got := mean(raw)
	t.Logf("cpu/raw samples %.1f: mean %.1f%% of a core (result, the max: %.1f%%)", values(raw), got, jr.Results[measure.CPURaw])
	if got < 45 || got > 55 {
		t.Errorf("benchmarks/cpu/raw mean %.1f%%, want 50%% ± 10%%", got)
	}
	cores, _ := jr.Environment["cores"].(float64)
	if r := mean(cpu) * cores / got; cores < 1 || r < 0.99 || r > 1.01 {
		t.Errorf("benchmarks/cpu × %v cores / cpu/raw = %.3f, want 1", cores, r)
	}
}

// TestLockContentionSharedVsPartitioned runs the app with a shared dispatch queue and with
// partitioned queues side by side, in one scenario, each under its own identical wrk load, and
// compares runtime-counter/lock-contention.
func TestLockContentionSharedVsPartitioned(t *testing.T) {
	port := func() int { return freePort(t) }
	sharedPort, partPort := port(), port()
	yml := writeFile(t, t.TempDir(), "side.yml", fmt.Sprintf(`
imports:
  - %[1]s/scenarios/jobs/apps.yml
  - %[1]s/scenarios/jobs/wrk.yml
scenarios:
  side:
    shared:
      job: plaintext
      variables: {serverPort: %[2]d, metricsPort: %[3]d, dispatch: shared, workers: 64}
      environmentVariables: {GOMAXPROCS: 2}
    partitioned:
      job: plaintext
      variables: {serverPort: %[4]d, metricsPort: %[5]d, dispatch: partitioned, partitions: 16}
      environmentVariables: {GOMAXPROCS: 2}
    loadShared:
      job: wrk
      variables: {serverPort: %[2]d, path: /plaintext, presetHeaders: plaintext, pipeline: 128}
    loadPartitioned:
      job: wrk
      variables: {serverPort: %[4]d, path: /plaintext, presetHeaders: plaintext, pipeline: 128}
`, testEnv.root, sharedPort, port(), partPort, port()))
	res := runJSON(t, "--config", yml, "--scenario", "side", "--variable", "duration=5", "--variable", "warmup=1")
	jobs := res.JobResults.Jobs
	shared, sok := jobs["shared"].Results[measure.LockContention]
	part, pok := jobs["partitioned"].Results[measure.LockContention]
	t.Logf("lock contention: shared %.1f ms/s (%.0f req/s), partitioned %.1f ms/s (%.0f req/s)",
		shared, jobs["loadShared"].Results[measure.RPS], part, jobs["loadPartitioned"].Results[measure.RPS])
	if !sok || !pok {
		t.Fatalf("lock contention missing: shared %v partitioned %v", sok, pok)
	}
	if shared <= part {
		t.Errorf("shared dispatch %.1f ms/s of lock contention <= partitioned %.1f ms/s", shared, part)
	}
}

// TestDiagnoseLightRealRun reads the JSON of a real run: one connection without pipelining is too
// light a load (or the load generator's limit), never the server's. The verdict is read from the
// CPU the run measured. (The wrong-path half, error-bound, is TestDiagnoseWrongPathErrorBound in
// the gate.)
func TestDiagnoseLightRealRun(t *testing.T) {
	light := runJSON(t, diagnoseRunArgs(t, "--variable", "connections=1", "--variable", "pipeline=1")...)
	ds := diagnose.Diagnose(light, diagnose.DefaultThresholds())
	t.Logf("one connection: %v", ds)
	k := kinds(ds)
	if !slices.Contains(k, diagnose.Underloaded) && !slices.Contains(k, diagnose.ClientBound) && !slices.Contains(k, diagnose.MachineBusy) ||
		slices.Contains(k, diagnose.ServerBound) {
		t.Errorf("one connection, no pipelining: kinds %v, want underloaded, client-bound or machine-busy, and not server-bound", k)
	}
}

// TestPlaintextWarmupMarkTight: TestPlaintextMeasurements's warm-up mark, held to 150 ms of the
// load's measured start (the gate allows half an interval): how late the agent's sampling timer
// wakes on this machine.
func TestPlaintextWarmupMarkTight(t *testing.T) {
	res := plaintextMeasurementsRun(t)
	checkWarmupWindow(t, res.JobResults.Jobs["application"], res.JobResults.Jobs["load"], 150*time.Millisecond)
}
