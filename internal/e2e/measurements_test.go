package e2e

import (
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/diagnose"
	"github.com/crankshaft/crankshaft/internal/measure"
	"github.com/crankshaft/crankshaft/internal/results"
)

// runJSON runs crank with --json into a temporary file and returns the result it wrote.
func runJSON(t *testing.T, args ...string) *results.Result {
	t.Helper()
	return runJSONExit(t, 0, args...)
}

// runJSONExit runs crank, wants the exit code, and returns the JSON it wrote.
func runJSONExit(t *testing.T, code int, args ...string) *results.Result {
	t.Helper()
	out := filepath.Join(t.TempDir(), "out.json")
	r := crank(t, 60*time.Second, append(args, "--json", out)...)
	if r.code != code {
		t.Fatalf("crank %v: exit %d\nstdout:\n%s\nstderr:\n%s", args, r.code, r.stdout, r.stderr)
	}
	res, err := results.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// samples returns a job's samples of name over every endpoint: measured and warm-up.
func samples(jr *results.JobResult, name string) (measured, warm []api.Measurement) {
	for _, tl := range jr.Measurements {
		for _, m := range tl {
			switch {
			case m.Name != name:
			case m.Warmup:
				warm = append(warm, m)
			default:
				measured = append(measured, m)
			}
		}
	}
	return measured, warm
}

func mean(ms []api.Measurement) float64 {
	s := 0.0
	for _, m := range ms {
		s += m.Value
	}
	return s / float64(len(ms))
}

func values(ms []api.Measurement) []float64 {
	var out []float64
	for _, m := range ms {
		out = append(out, m.Value)
	}
	return out
}

func kinds(ds []results.Diagnostic) []string {
	var out []string
	for _, d := range ds {
		out = append(out, d.Kind)
	}
	return out
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

// TestPlaintextMeasurements runs the plaintext scenario and reads its JSON: the default counters
// are there, the timelines keep every sample with warm-up marked where the load's measured
// window starts, the summaries leave warm-up out, and every name is in the catalog.
func TestPlaintextMeasurements(t *testing.T) {
	const duration = 4
	res := runJSON(t, "--config", "scenarios/plaintext.yml", "--scenario", "plaintext",
		"--variable", "duration="+strconv.Itoa(duration), "--variable", "warmup=1",
		"--variable", fmt.Sprintf("serverPort=%d", freePort(t)), "--variable", fmt.Sprintf("metricsPort=%d", freePort(t)))
	app, load := res.JobResults.Jobs["application"], res.JobResults.Jobs["load"]
	for _, name := range []string{measure.LockContention, measure.ExceptionCount, measure.Goroutines, measure.SchedLatencyP99} {
		if _, ok := app.Results[name]; !ok {
			t.Errorf("application results lack %s: %v", name, app.Results)
		}
	}
	measured, warm := samples(app, measure.CPU)
	if len(measured)+len(warm) < duration || len(measured) < duration-1 {
		t.Errorf("application: %d measured and %d warm-up samples of %s, want at least %d in all", len(measured), len(warm), measure.CPU, duration)
	}
	checkWarmupWindow(t, app, load)
	for svc, jr := range res.JobResults.Jobs {
		checkSummaries(t, svc, jr)
	}
	ds := diagnose.Diagnose(res, diagnose.DefaultThresholds())
	if len(ds) == 0 {
		t.Errorf("no diagnosis of a loaded run")
	}
	t.Logf("lock contention %.2f ms/s, exceptions %.2f/s; diagnosis %v", app.Results[measure.LockContention],
		app.Results[measure.ExceptionCount], ds)
}

// checkWarmupWindow: the load's warm-up run is marked; the server's samples are marked up to the
// load's measured start (its first measured sample comes one interval after it) and not after: a
// server's sample that covers the load's warm-up and the window's start covers a loaded server.
func checkWarmupWindow(t *testing.T, app, load *results.JobResult) {
	t.Helper()
	lm, lw := samples(load, measure.CPU)
	am, aw := samples(app, measure.CPU)
	if len(lm) == 0 || len(lw) == 0 || len(aw) == 0 {
		t.Fatalf("load: %d measured, %d warm-up samples; application %d warm-up: want some of each", len(lm), len(lw), len(aw))
	}
	start := lm[0].Timestamp.Add(-time.Second) // the load's measured run began one interval before its first sample
	for _, m := range lw {
		if !m.Timestamp.Before(lm[0].Timestamp) {
			t.Errorf("load warm-up sample at %s after its first measured one at %s", m.Timestamp, lm[0].Timestamp)
		}
	}
	const slack = 150 * time.Millisecond
	for _, m := range aw {
		if m.Timestamp.After(start.Add(slack)) {
			t.Errorf("application sample at %s marked warm-up, after the measured start ~%s", m.Timestamp, start)
		}
	}
	for _, m := range am {
		if m.Timestamp.Before(start.Add(-slack)) {
			t.Errorf("application sample at %s not marked warm-up, before the measured start ~%s", m.Timestamp, start)
		}
	}
}

// checkSummaries: each result is the catalog's aggregate of the measured samples only, and every
// name in the timelines is declared in the catalog.
func checkSummaries(t *testing.T, svc string, jr *results.JobResult) {
	t.Helper()
	catalog := measure.Default()
	for _, tl := range jr.Measurements {
		for _, m := range tl {
			if _, ok := catalog.Lookup(m.Name); !ok {
				t.Errorf("%s: measurement %q is not in the catalog", svc, m.Name)
			}
		}
	}
	for _, md := range jr.Metadata {
		measured, warm := samples(jr, md.Name)
		if len(measured) == 0 {
			continue
		}
		want, _ := results.Apply(md.Aggregate, values(measured))
		if got := jr.Results[md.Name]; got != want {
			t.Errorf("%s: %s = %v, want %s of the %d measured samples = %v (%d warm-up samples left out)",
				svc, md.Name, got, md.Aggregate, len(measured), want, len(warm))
		}
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

// TestDiagnoseRealRuns reads the JSON of real runs: one connection without pipelining is too light
// a load (or the load generator's limit), never the server's; a wrong path (404s) is error-bound.
func TestDiagnoseRealRuns(t *testing.T) {
	base := []string{"--config", "scenarios/plaintext.yml", "--scenario", "plaintext",
		"--variable", "duration=3", "--variable", "warmup=0"}
	ports := func() []string {
		return []string{"--variable", fmt.Sprintf("serverPort=%d", freePort(t)), "--variable", fmt.Sprintf("metricsPort=%d", freePort(t))}
	}
	light := runJSON(t, slices.Concat(base, ports(), []string{"--variable", "connections=1", "--variable", "pipeline=1"})...)
	ds := diagnose.Diagnose(light, diagnose.DefaultThresholds())
	t.Logf("one connection: %v", ds)
	k := kinds(ds)
	if !slices.Contains(k, diagnose.Underloaded) && !slices.Contains(k, diagnose.ClientBound) && !slices.Contains(k, diagnose.MachineBusy) ||
		slices.Contains(k, diagnose.ServerBound) {
		t.Errorf("one connection, no pipelining: kinds %v, want underloaded, client-bound or machine-busy, and not server-bound", k)
	}
	// A run whose requests all fail exits 1; its JSON is written all the same.
	missing := runJSONExit(t, 1, slices.Concat(base, ports(), []string{"--variable", "path=/missing"})...)
	ds = diagnose.Diagnose(missing, diagnose.DefaultThresholds())
	t.Logf("wrong path: %v", ds)
	if k := kinds(ds); len(k) == 0 || slices.DeleteFunc(k, func(s string) bool { return s == diagnose.MachineBusy })[0] != diagnose.ErrorBound {
		t.Errorf("404s: diagnosis %v, want error-bound first (after machine-busy)", ds)
	}
}
