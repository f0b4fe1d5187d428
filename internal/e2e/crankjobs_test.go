package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/agent/dotnet/dotnettest"
)

// TestCrankLoadJobs runs crank's own wrk.yml and bombardier.yml (unmodified copies in
// testdata/crank, imported by a local scenario file) against apps/plaintext with --profile local:
// the wrappers' arguments run the real tools, with a warm-up run. The scenario file's root
// results: definition (percentile90 of benchmarks/cpu/raw), its onResultsCreated script and a
// --script show in the results.
func TestCrankLoadJobs(t *testing.T) {
	// wrk's rate is http/rps/mean's number: the table shows it once, under our name, and the JSON
	// keeps crank's name too; bombardier's is another number, shown under its own.
	for _, sc := range []struct{ scenario, rps, shown string }{{"plaintext", "wrk/rps/mean", "http/rps/mean"},
		{"plaintext-bombardier", "bombardier/rps/mean", "bombardier/rps/mean"}} {
		t.Run(sc.scenario, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out.json")
			_, ports := appPorts(t)
			args := append([]string{"--no-probe", "--config", "internal/e2e/testdata/crank/plaintext.benchmarks.yml", "--scenario", sc.scenario,
				"--profile", "local", "--variable", "duration=2", "--variable", "warmup=1", "--variable", "threads=1",
				"--variable", "connections=16", "--json", out, "--script", "hello"}, ports...)
			r := crank(t, 3*time.Minute, args...)
			if r.code != 0 {
				t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
			}
			mustContain(t, "stdout", r.stdout, "benchmarks/cpu/raw/90", sc.shown)
			mustContain(t, "stderr", r.stderr, "hello from --script, ")
			var res struct {
				JobResults struct {
					Jobs map[string]struct {
						Results  map[string]any `json:"results"`
						Metadata []map[string]any
					} `json:"jobs"`
					Properties map[string]string `json:"properties"`
				} `json:"jobResults"`
			}
			b, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(b, &res); err != nil {
				t.Fatal(err)
			}
			app, load := res.JobResults.Jobs["application"], res.JobResults.Jobs["load"]
			if v, _ := app.Results["benchmarks/cpu/raw/90"].(float64); v <= 0 {
				t.Errorf("application benchmarks/cpu/raw/90 = %v", app.Results["benchmarks/cpu/raw/90"])
			}
			if v, _ := load.Results[sc.rps].(float64); v <= 0 {
				t.Errorf("load %s = %v", sc.rps, load.Results[sc.rps])
			}
			if res.JobResults.Properties["rps-per-core"] == "" {
				t.Errorf("onResultsCreated left no rps-per-core property: %v", res.JobResults.Properties)
			}
			for _, m := range append(app.Metadata, load.Metadata...) {
				if d, _ := m["description"].(string); d == "" {
					t.Errorf("metadata %v has no description", m["name"])
				}
			}
		})
	}
}

// TestOnConfigureStopsTheRun: an onConfigure script that throws stops crank before anything
// starts, with the script's message, its file and line.
func TestOnConfigureStopsTheRun(t *testing.T) {
	r := crank(t, time.Minute, "--config", "internal/e2e/testdata/crank/plaintext.benchmarks.yml", "--scenario", "check",
		"--profile", "local", "--variable", "serverPort=80")
	if r.code != 2 {
		t.Fatalf("exit %d, want 2\n%s", r.code, r.stderr)
	}
	mustContain(t, "stderr", r.stderr, "plaintext.benchmarks.yml:46 onConfigure[0]: serverPort must be 1024 or above, got 80")
	if strings.Contains(r.stderr, "uploading") || strings.Contains(r.stderr, "starting job") {
		t.Errorf("something started:\n%s", r.stderr)
	}
}

// TestJobStatistics: a job that prints crank's #StartJobStatistics block has its measurements
// and metadata (description, aggregate) in the results.
func TestJobStatistics(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "stats.yml")
	block := `#StartJobStatistics
{"Metadata": [{"source": "me", "name": "my/result", "aggregate": "Sum", "reduce": "Max", "format": "n1", "shortDescription": "My result (ms)"}],
 "Measurements": [{"name": "my/result", "timestamp": "2024-02-23T13:01:56Z", "value": 1.5}, {"name": "my/result", "value": 2}]}
#EndJobStatistics`
	yml := "jobs:\n  stats:\n    executable: sh\n    waitForExit: true\n    arguments: \"-c 'cat stats.txt'\"\n" +
		"    source:\n      localFolder: .\nscenarios:\n  s:\n    load:\n      job: stats\n"
	if err := os.WriteFile(cfg, []byte(yml), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "stats.txt"), []byte("hello\n"+block+"\nbye\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.json")
	r := crank(t, time.Minute, "--config", cfg, "--scenario", "s", "--json", out)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	mustContain(t, "stdout", r.stdout, "my/result", "3.5")
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	mustContain(t, "json", string(b), `"description": "My result (ms)"`, `"my/result": 3.5`)
}

// TestCrankH2loadJob: crank's h2load.yml (unmodified copy) sends gRPC unary calls to apps/grpc
// over h2c; the wrapper's base64 body is decoded into a file by the job's build step.
func TestCrankH2loadJob(t *testing.T) {
	needTool(t, "h2load")
	out := filepath.Join(t.TempDir(), "out.json")
	_, ports := appPorts(t)
	r := crank(t, 3*time.Minute, append([]string{"--no-probe", "--config", "internal/e2e/testdata/crank/grpc.benchmarks.yml", "--scenario", "grpc",
		"--profile", "local", "--variable", "duration=2", "--variable", "warmup=1", "--variable", "connections=2",
		"--variable", "streams=4", "--json", out}, ports...)...)
	if r.code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	load := readResult(t, out).JobResults.Jobs["load"]
	if load.Results["http/requests"] <= 0 || load.Results["http/requests/badresponses"] != 0 {
		t.Errorf("load results %v", load.Results)
	}
}

// TestBenchmarksPlaintextLocal runs aspnet/Benchmarks' plaintext.benchmarks.yml (a copy with its
// imports on local copies) as a user of crank's files would here, on the embedded agent
// (profiles/local.yml loaded after Benchmarks' own `local` profile, which points at a crank-agent
// on localhost:5010), the load through crank's wrk.yml. Its application is a .NET build: on an
// agent without the .NET SDK it is refused before anything starts, naming the agent and the way
// to our own apps; with our plaintext app swapped in by that one option it runs.
func TestBenchmarksPlaintextLocal(t *testing.T) {
	cfg := "internal/e2e/testdata/benchmarks/plaintext.benchmarks.yml"
	r := crankEnv(t, time.Minute, []string{"PATH=" + withoutDotnet(t)}, "--config", cfg, "--config", "profiles/local.yml", "--scenario", "plaintext", "--profile", "local")
	if r.code != 2 {
		t.Fatalf("exit %d, want 2\n%s", r.code, r.stderr)
	}
	mustContain(t, "stderr", r.stderr, `service "application": job "aspnetbenchmarks": the agent http://127.0.0.1:`,
		"lacks a .NET SDK to build src/Benchmarks/Benchmarks.csproj (dotnet is not on its PATH)", "--application.job plaintext")
	if strings.Contains(r.stderr, "starting job") || strings.Contains(r.stderr, "uploading") {
		t.Errorf("something started:\n%s", r.stderr)
	}
	out := filepath.Join(t.TempDir(), "out.json")
	_, ports := appPorts(t)
	r = crank(t, 3*time.Minute, append([]string{"--no-probe", "--config", cfg, "--config", "profiles/local.yml",
		"--scenario", "plaintext", "--profile", "local", "--application.job", "plaintext", "--variable", "duration=2",
		"--variable", "warmup=1", "--variable", "threads=1", "--variable", "connections=16", "--json", out}, ports...)...)
	if r.code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	res := readResult(t, out)
	if rps := res.JobResults.Jobs["load"].Results["wrk/rps/mean"]; rps <= 0 {
		t.Errorf("wrk/rps/mean = %v", rps)
	}
	if strings.Contains(r.stderr, "localhost:5010") {
		t.Errorf("a service went to Benchmarks' local agent:\n%s", r.stderr)
	}
}

// withoutDotnet is PATH without any folder holding a dotnet binary.
func withoutDotnet(t *testing.T) string {
	t.Helper()
	var keep []string
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		if _, err := os.Stat(filepath.Join(dir, "dotnet")); err != nil {
			keep = append(keep, dir)
		}
	}
	return strings.Join(keep, string(filepath.ListSeparator))
}

// TestBenchmarksDotnetStandin runs aspnet/Benchmarks' plaintext and json scenarios and its grpc
// h2load scenario against grpc-dotnet's server as written, but for the application's source
// pointed at a local folder (no internet here), on an agent whose PATH has the stand-in .NET CLI
// (internal/agent/dotnet/testdata/standin: it accepts only the command lines the .NET CLI
// documents): the agent publishes the project, runs the published app, and the load measures it;
// the json run reuses the plaintext run's build (the same project, SDK and command).
func TestBenchmarksDotnetStandin(t *testing.T) {
	path := dotnettest.Standin(t) + string(filepath.ListSeparator) + os.Getenv("PATH")
	grpc := []string{"--variable", "path=/grpc.testing.BenchmarkService/UnaryCall", "--variable", "body=AAAAAAcKBVdvcmxk", "--variable", "streams=10"}
	for i, c := range []struct {
		file, scenario, source string
		extra                  []string
	}{
		{"plaintext.benchmarks.yml", "plaintext", dotnettest.Benchmarks(t), nil},
		{"json.benchmarks.yml", "json", dotnettest.Benchmarks(t), nil},
		{"grpc.benchmarks.yml", "grpcaspnetcoreserver-h2loadclient", dotnettest.GrpcDotnet(t), grpc},
	} {
		out := filepath.Join(t.TempDir(), "out.json")
		port := strconv.Itoa(freePort(t))
		args := []string{"--no-probe", "--config", "internal/e2e/testdata/benchmarks/" + c.file, "--config", "profiles/local.yml", "--scenario", c.scenario,
			"--profile", "local", "--application.source.localFolder", c.source, "--application.source.repository", "",
			"--variable", "serverPort=" + port, "--variable", "duration=2", "--variable", "warmup=0", "--variable", "threads=1",
			"--variable", "connections=4", "--json", out}
		r := crankEnv(t, 3*time.Minute, []string{"PATH=" + path}, append(args, c.extra...)...)
		if r.code != 0 {
			t.Fatalf("%s: exit %d\nstdout:\n%s\nstderr:\n%s", c.scenario, r.code, r.stdout, r.stderr)
		}
		res := readResult(t, out)
		load := res.JobResults.Jobs["load"].Results
		if load["http/rps/mean"] <= 0 || load["http/latency/mean"] <= 0 {
			t.Errorf("%s: load results %v: want RPS and latency", c.scenario, load)
		}
		if bad := load["http/requests/badresponses"]; bad != 0 {
			t.Errorf("%s: %v bad responses: the app does not answer the scenario's requests", c.scenario, bad)
		}
		if kb := res.JobResults.Jobs["application"].Results["benchmarks/published-size"]; kb < 100 {
			t.Errorf("%s: benchmarks/published-size = %v KB, want the published folder's size (a Go binary: megabytes)", c.scenario, kb)
		}
		if reused := res.JobResults.Jobs["application"].Environment["buildReused"] == true; (i == 1) != reused {
			t.Errorf("%s: build reused %v, want it on the json run only", c.scenario, reused)
		}
	}
}

// TestBenchmarksOnOurApps: aspnet/Benchmarks' json scenario and its grpc h2load scenario, as
// written, run on our own apps with one option (--application.job: the job, not in Benchmarks'
// files, is taken from scenarios/jobs/apps.yml, and crank says so),
// the grpc one with the request path and body aspnet/Benchmarks' pipeline passes
// (build/grpc-scenarios.yml): every response good, RPS and latency measured.
func TestBenchmarksOnOurApps(t *testing.T) {
	for _, c := range []struct {
		file, scenario, job string
		extra               []string
	}{
		{"json.benchmarks.yml", "json", "json", nil},
		{"grpc.benchmarks.yml", "grpcgoserver-h2loadclient", "grpc", []string{"--variable", "path=/grpc.testing.BenchmarkService/UnaryCall",
			"--variable", "body=AAAAAAcKBVdvcmxk", "--variable", "streams=10"}},
	} {
		t.Run(c.scenario, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out.json")
			_, ports := appPorts(t)
			args := append([]string{"--no-probe", "--config", "internal/e2e/testdata/benchmarks/" + c.file, "--config", "profiles/local.yml", "--scenario", c.scenario, "--profile", "local", "--application.job", c.job,
				"--variable", "duration=2", "--variable", "warmup=0", "--variable", "threads=1", "--variable", "connections=4", "--json", out}, ports...)
			r := crank(t, 3*time.Minute, append(args, c.extra...)...)
			if r.code != 0 {
				t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
			}
			if want := "crank: note: job " + c.job + " is not in the files given: taken from Crankshaft's own apps"; !strings.Contains(r.stderr, want) {
				t.Errorf("stderr does not say %q:\n%s", want, r.stderr)
			}
			load := readResult(t, out).JobResults.Jobs["load"].Results
			if load["http/rps/mean"] <= 0 || load["http/latency/mean"] <= 0 || load["http/requests"] <= 0 {
				t.Errorf("load results %v: want RPS, latency and requests", load)
			}
			if bad := load["http/requests/badresponses"]; bad != 0 {
				t.Errorf("%v bad responses of %v: our %s app does not answer the scenario's requests", bad, load["http/requests"], c.job)
			}
		})
	}
}
