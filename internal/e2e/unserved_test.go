package e2e

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/diagnose"
	"github.com/crankshaft/crankshaft/internal/measure"
	"github.com/crankshaft/crankshaft/internal/results"
)

// TestBenchmarksGRPCWrongPath: aspnet/Benchmarks' gRPC h2load scenario, run from the checkouts as
// runs does for 2 s, with a path the service does not have. h2load counts every call good (a
// failed gRPC call is an HTTP 200 whose status is in the trailers it does not read), our app
// served none and counted each as failed (Unimplemented): the verdict is unserved, naming both
// figures, whatever else the machine did (machine-busy may be said beside it, never instead).
// The diagnosis does not change the exit status: crank exits 0, as h2load counted no failure.
func TestBenchmarksGRPCWrongPath(t *testing.T) {
	_, env := docMaps()
	out := filepath.Join(t.TempDir(), "out.json")
	_, ports := appPorts(t)
	args := append([]string{"--config", rawBenchmarks + "scenarios/grpc.benchmarks.yml", "--config", "profiles/local.yml",
		"--scenario", "grpcgoserver-h2loadclient", "--profile", "local", "--application.job", "grpc",
		"--variable", "path=/grpc.testing.BenchmarkService/Nope", "--variable", "body=AAAAAAcKBVdvcmxk"}, ports...)
	r := crankEnv(t, 3*time.Minute, append(env, noNetwork(t)...), append(args, "--variable", "duration=2", "--variable", "warmup=0", "--json", out)...)
	if r.code != 0 {
		t.Fatalf("exit %d, want 0 (the diagnosis does not fail a run)\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	res, err := results.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	load, app := res.JobResults.Jobs["load"].Results, res.JobResults.Jobs["application"].Results
	t.Logf("load.rps=%.0f load.badresponses=%.0f load.errors=%.0f app.rps=%.0f app.exceptions=%.0f",
		load[measure.RPS], load[measure.BadResponses], load[measure.Errors], app[measure.RequestsPerSecond], app[measure.ExceptionCount])
	if load[measure.RPS] <= 0 || load[measure.BadResponses] != 0 || load[measure.Errors] != 0 {
		t.Errorf("load results %v: want requests/s counted good, none bad and no error (h2load does not read gRPC statuses)", load)
	}
	if app[measure.RequestsPerSecond] != 0 || app[measure.ExceptionCount] <= 0 {
		t.Errorf("application results %v: want no request served and the failed calls counted", app)
	}
	v, ok := res.JobResults.Verdict()
	if !ok || v.Kind != diagnose.Unserved {
		t.Fatalf("verdict %+v, want %s\nstdout:\n%s", v, diagnose.Unserved, r.stdout)
	}
	for _, d := range res.JobResults.Diagnostics[1:] {
		// Beside it only what does not contradict it.
		if d.Kind != diagnose.MachineBusy {
			t.Errorf("beside the verdict: %s, want only machine-busy", d.Kind)
		}
	}
	mustContain(t, "the verdict", v.Message, "good answers/s (http/rps/mean "+results.Format(load[measure.RPS], "n0")+", 0 bad responses, 0 socket errors)",
		"but by its own count (runtime-counter/requests-per-second) application served 0 requests/s: 0 % of them",
		"a gRPC status in the trailers the load tool does not read", "ghz", "runtime-counter/exception-count: application ")
	mustContain(t, "stdout", r.stdout, "  verdict unserved: "+v.Message+"\n")
	if strings.Contains(r.stderr, "fetch") {
		t.Errorf("something was fetched:\n%s", r.stderr)
	}
}

// readVerdict is the verdict of crank's JSON at path.
func readVerdict(t *testing.T, path string) (results.Diagnostic, bool) {
	t.Helper()
	res, err := results.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return res.JobResults.Verdict()
}
