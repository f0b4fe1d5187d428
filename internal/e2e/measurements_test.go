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

// TestPlaintextMeasurements runs the plaintext scenario and reads its JSON: the default counters
// are there, the timelines keep every sample with warm-up marked where the load's measured
// window starts, the summaries leave warm-up out, and every name is in the catalog.
//
// The warm-up mark is checked to half a sampling interval (500 ms at the scenario's 1 s): a
// sample marked on the wrong side of the window's start is a whole interval off, so this still
// catches it, while a sample's timer waking a few hundred ms late beside a busy core does not
// fail the gate. TestPlaintextWarmupMarkTight (make measure) holds it to 150 ms.
func TestPlaintextMeasurements(t *testing.T) {
	res := plaintextMeasurementsRun(t)
	app, load := res.JobResults.Jobs["application"], res.JobResults.Jobs["load"]
	for _, name := range []string{measure.LockContention, measure.ExceptionCount, measure.Goroutines, measure.SchedLatencyP99} {
		if _, ok := app.Results[name]; !ok {
			t.Errorf("application results lack %s: %v", name, app.Results)
		}
	}
	measured, warm := samples(app, measure.CPU)
	if len(measured)+len(warm) < plaintextDuration || len(measured) < plaintextDuration-1 {
		t.Errorf("application: %d measured and %d warm-up samples of %s, want at least %d in all", len(measured), len(warm), measure.CPU, plaintextDuration)
	}
	checkWarmupWindow(t, app, load, 500*time.Millisecond)
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

// plaintextDuration is plaintextMeasurementsRun's measured seconds.
const plaintextDuration = 4

// plaintextMeasurementsRun runs the plaintext scenario on free ports, plaintextDuration measured
// seconds after 1 of warm-up, and returns its JSON.
func plaintextMeasurementsRun(t *testing.T) *results.Result {
	t.Helper()
	return runJSON(t, "--no-probe", "--config", "scenarios/plaintext.yml", "--scenario", "plaintext",
		"--variable", "duration="+strconv.Itoa(plaintextDuration), "--variable", "warmup=1",
		"--variable", fmt.Sprintf("serverPort=%d", freePort(t)), "--variable", fmt.Sprintf("metricsPort=%d", freePort(t)))
}

// checkWarmupWindow: the load's warm-up run is marked; the server's samples are marked up to the
// load's measured start (its first measured sample comes one interval after it) and not after,
// within slack: a server's sample that covers the load's warm-up and the window's start covers a
// loaded server.
func checkWarmupWindow(t *testing.T, app, load *results.JobResult, slack time.Duration) {
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

// diagnoseRunArgs are crank's arguments for a real plaintext run of 3 s, no warm-up, on free
// ports, with extra.
func diagnoseRunArgs(t *testing.T, extra ...string) []string {
	t.Helper()
	return slices.Concat([]string{"--config", "scenarios/plaintext.yml", "--scenario", "plaintext",
		"--variable", "duration=3", "--variable", "warmup=0",
		"--variable", fmt.Sprintf("serverPort=%d", freePort(t)), "--variable", fmt.Sprintf("metricsPort=%d", freePort(t))}, extra)
}

// TestDiagnoseWrongPathErrorBound reads the JSON of a real run whose requests all get 404: it is
// error-bound, whatever the machine did (error-bound ranks before every verdict read from
// measured CPU; only machine-busy may come first). The light-load half of what was
// TestDiagnoseRealRuns reads its verdict from measured CPU: TestDiagnoseLightRealRun, make measure.
func TestDiagnoseWrongPathErrorBound(t *testing.T) {
	// A run whose requests all fail exits 1; its JSON is written all the same.
	missing := runJSONExit(t, 1, diagnoseRunArgs(t, "--variable", "path=/missing")...)
	ds := diagnose.Diagnose(missing, diagnose.DefaultThresholds())
	t.Logf("wrong path: %v", ds)
	if k := slices.DeleteFunc(kinds(ds), func(s string) bool { return s == diagnose.MachineBusy }); len(k) == 0 || k[0] != diagnose.ErrorBound {
		t.Errorf("404s: diagnosis %v, want error-bound first (after machine-busy)", ds)
	}
}
