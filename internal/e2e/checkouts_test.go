package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/diagnose"
)

// The raw URL prefixes aspnet/Benchmarks' scenarios import from, and the unmodified copies of
// those repositories' files in testdata/checkouts, each at its path upstream: a user's checkouts.
const (
	rawBenchmarks = "https://raw.githubusercontent.com/aspnet/Benchmarks/main/"
	rawCrank      = "https://raw.githubusercontent.com/dotnet/crank/main/"
	rawGrpcDotnet = "https://raw.githubusercontent.com/grpc/grpc-dotnet/master/"
	checkouts     = "internal/e2e/testdata/checkouts/"
)

// grpcRequest is the request docs/CRANK.md#offline-imports gives crank's h2load job for Benchmarks'
// gRPC scenario: BenchmarkService's UnaryCall, with one gRPC-framed 7-byte message (field 1, the
// string "World"; SimpleRequest keeps it as an unknown field, so the call asks for an empty payload).
var grpcRequest = []string{"--variable", "path=/grpc.testing.BenchmarkService/UnaryCall", "--variable", "body=AAAAAAcKBVdvcmxk"}

// mustRead is the file's content.
func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// noNetwork sends every fetch crank makes through a proxy that is not there: a URL the mapping
// misses fails here at once instead of reaching the internet (loopback is never proxied).
func noNetwork(t *testing.T) []string {
	proxy := "http://127.0.0.1:" + strconv.Itoa(freePort(t))
	return []string{"HTTPS_PROXY=" + proxy, "HTTP_PROXY=" + proxy, "NO_PROXY=", "https_proxy=" + proxy, "http_proxy=" + proxy, "no_proxy="}
}

// importMaps maps the three repositories' prefixes to their checkouts: crank's and grpc-dotnet's
// with the flag, Benchmarks' with the environment variable, so both are exercised.
func importMaps() (args, env []string) {
	return []string{"--import-map", rawCrank + "=" + checkouts + "crank", "--import-map", rawGrpcDotnet + "=" + checkouts + "grpc-dotnet"},
		[]string{"CRANK_IMPORT_MAP=" + rawBenchmarks + "=" + checkouts + "Benchmarks"}
}

// TestBenchmarksFromCheckouts: aspnet/Benchmarks' plaintext, json and gRPC scenarios, given by
// their URLs, resolve offline from local checkouts of Benchmarks, crank and grpc-dotnet (the files
// as they are upstream, imports by URL untouched) with --import-map, CRANK_IMPORT_MAP and
// --application.job; the gRPC scenario without the request it needs is refused before anything
// starts, naming the variables; an unmapped import names the URL, the file importing it and the
// mapping to give; crank's samples/hello is refused naming --application.job; and the three run
// for 2 s on the embedded agent (runs).
func TestBenchmarksFromCheckouts(t *testing.T) {
	maps, env := importMaps()
	env = append(env, noNetwork(t)...)
	for _, c := range []struct {
		file, scenario, job, exe, load, url string
		extra                               []string
	}{
		{"plaintext", "plaintext", "plaintext", "./bin/plaintext", "wrk", "/plaintext", nil},
		{"json", "json", "json", "./bin/json", "wrk", "/json", nil},
		{"grpc", "grpcgoserver-h2loadclient", "grpc", "./bin/grpc", "h2load", "/grpc.testing.BenchmarkService/UnaryCall", grpcRequest},
	} {
		t.Run(c.scenario, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "dry.json")
			args := append([]string{"--no-probe", "--config", rawBenchmarks + "scenarios/" + c.file + ".benchmarks.yml", "--config", "profiles/local.yml",
				"--scenario", c.scenario, "--profile", "local", "--application.job", c.job, "--dry-run", out}, maps...)
			r := crankEnv(t, time.Minute, env, append(args, c.extra...)...)
			if r.code != 0 {
				t.Fatalf("exit %d\n%s", r.code, r.stderr)
			}
			var dry struct {
				Services map[string]struct {
					Job, Executable, Arguments string
					Endpoints                  []string
				}
			}
			if err := json.Unmarshal(mustRead(t, out), &dry); err != nil {
				t.Fatal(err)
			}
			app, load := dry.Services["application"], dry.Services["load"]
			if app.Job != c.job || app.Executable != c.exe || len(app.Endpoints) != 0 {
				t.Errorf("application %+v: want our %s app (%s) on the embedded agent", app, c.job, c.exe)
			}
			if load.Executable != c.load || !strings.Contains(load.Arguments, ":5000"+c.url) || len(load.Endpoints) != 0 {
				t.Errorf("load %+v: want %s on %s of the application, on the embedded agent", load, c.load, c.url)
			}
			if strings.Contains(r.stderr, "fetch") {
				t.Errorf("something was fetched:\n%s", r.stderr)
			}
		})
	}

	t.Run("grpc without its request", func(t *testing.T) {
		r := crankEnv(t, time.Minute, env, append([]string{"--no-probe", "--config", rawBenchmarks + "scenarios/grpc.benchmarks.yml", "--config", "profiles/local.yml",
			"--scenario", "grpcgoserver-h2loadclient", "--profile", "local", "--application.job", "grpc"}, maps...)...)
		if r.code != 2 {
			t.Fatalf("exit %d, want 2\n%s", r.code, r.stderr)
		}
		mustContain(t, "stderr", r.stderr, rawCrank+"src/Microsoft.Crank.Jobs.H2Load/h2load.yml:13:", `key "arguments"`,
			"--variable path=/grpc.testing.BenchmarkService/UnaryCall", "--variable body=AAAAAAcKBVdvcmxk")
		if strings.Contains(r.stderr, "building") || strings.Contains(r.stderr, "starting") {
			t.Errorf("something started:\n%s", r.stderr)
		}
	})

	t.Run("an import not mapped", func(t *testing.T) {
		r := crankEnv(t, time.Minute, env, "--config", rawBenchmarks+"scenarios/grpc.benchmarks.yml", "--config", "profiles/local.yml",
			"--scenario", "grpcgoserver-h2loadclient", "--profile", "local", "--application.job", "grpc", "--import-map", rawCrank+"="+checkouts+"crank")
		if r.code != 2 {
			t.Fatalf("exit %d, want 2\n%s", r.code, r.stderr)
		}
		mustContain(t, "stderr", r.stderr, rawBenchmarks+`scenarios/grpc.benchmarks.yml:6: import "`+rawGrpcDotnet+"perf/benchmarkapps/GrpcClient/grpc-client.yml",
			"--import-map "+rawGrpcDotnet+"=/path/to/grpc-dotnet (or CRANK_IMPORT_MAP)")
	})

	t.Run("crank's samples/hello", func(t *testing.T) { // its job-level project is a .NET build
		r := crankEnv(t, time.Minute, append(env, "PATH="+withoutDotnet(t)), "--config", rawCrank+"samples/hello/hello.benchmarks.yml",
			"--config", "profiles/local.yml", "--scenario", "hello", "--profile", "local", "--import-map", rawCrank+"="+checkouts+"crank")
		if r.code != 2 {
			t.Fatalf("exit %d, want 2\n%s", r.code, r.stderr)
		}
		mustContain(t, "stderr", r.stderr, "lacks a .NET SDK to build crank/samples/hello/hello.csproj", "--application.job plaintext")
	})

	runs(t)
}

// docMaps are the mappings as docs/CRANK.md#offline-imports gives them: two flags in its plaintext
// command, the three prefixes in CRANK_IMPORT_MAP in its gRPC one.
func docMaps() (flags, env []string) {
	return []string{"--import-map", rawBenchmarks + "=" + checkouts + "Benchmarks", "--import-map", rawCrank + "=" + checkouts + "crank"},
		[]string{"CRANK_IMPORT_MAP=" + rawBenchmarks + "=" + checkouts + "Benchmarks\n  " + rawCrank + "=" + checkouts + "crank\n  " +
			rawGrpcDotnet + "=" + checkouts + "grpc-dotnet"}
}

// runs: docs/CRANK.md's commands for Benchmarks' plaintext, json and gRPC h2load scenarios, as
// printed there but for a 2 s run with no warm-up on free ports, run on the embedded agent. The
// load tool saw requests answered and none bad or failed; the application counted the requests it
// handled and no failure. For gRPC the second half is what tells: h2load counts HTTP statuses, and
// a gRPC error comes in a 200 (its status is in the trailers h2load does not read), so a request
// the service did not take (a wrong path or body) is good to h2load; our app counts only the calls
// that reached its handler, and the failed ones (exception-count). The two agree, so the diagnosis
// does not say unserved (TestBenchmarksGRPCWrongPath is the run where it does).
func runs(t *testing.T) {
	flags, env := docMaps()
	wrkVars := []string{"--variable", "threads=1", "--variable", "connections=32"}
	for _, c := range []struct {
		file, scenario, job string
		maps, env, vars     []string
	}{
		{"plaintext", "plaintext", "plaintext", flags, nil, wrkVars},
		{"json", "json", "json", flags, nil, wrkVars},
		{"grpc", "grpcgoserver-h2loadclient", "grpc", nil, env, grpcRequest},
	} {
		t.Run(c.scenario+" runs", func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out.json")
			_, ports := appPorts(t)
			args := append([]string{"--no-probe", "--config", rawBenchmarks + "scenarios/" + c.file + ".benchmarks.yml"}, c.maps...)
			args = append(args, "--config", "profiles/local.yml", "--scenario", c.scenario, "--profile", "local", "--application.job", c.job)
			args = append(append(args, c.vars...), ports...)
			r := crankEnv(t, 3*time.Minute, append(append([]string{}, c.env...), noNetwork(t)...), append(args, "--variable", "duration=2", "--variable", "warmup=0", "--json", out)...)
			if r.code != 0 {
				t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
			}
			jobs := readResult(t, out).JobResults.Jobs
			load, app := jobs["load"].Results, jobs["application"].Results
			t.Logf("scenario=%s load.rps=%.0f load.requests=%.0f load.badresponses=%.0f load.errors=%.0f app.rps=%.0f app.exceptions=%.2f",
				c.scenario, load["http/rps/mean"], load["http/requests"], load["http/requests/badresponses"], load["http/requests/errors"],
				app["runtime-counter/requests-per-second"], app["runtime-counter/exception-count"])
			if load["http/rps/mean"] <= 0 || load["http/requests/badresponses"] != 0 || load["http/requests/errors"] != 0 {
				t.Errorf("load results %v: want requests/s and no bad response or error", load)
			}
			if app["runtime-counter/requests-per-second"] <= 0 || app["runtime-counter/exception-count"] != 0 {
				t.Errorf("application results %v: want the requests handled and none failed", app)
			}
			if v, ok := readVerdict(t, out); ok && v.Kind == diagnose.Unserved {
				t.Errorf("a healthy run's verdict is %s: %s", v.Kind, v.Message)
			}
			if strings.Contains(r.stderr, "fetch") {
				t.Errorf("something was fetched:\n%s", r.stderr)
			}
		})
	}
}
