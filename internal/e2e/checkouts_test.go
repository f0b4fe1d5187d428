package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The raw URL prefixes aspnet/Benchmarks' scenarios import from, and the unmodified copies of
// those repositories' files in testdata/checkouts, each at its path upstream: a user's checkouts.
const (
	rawBenchmarks = "https://raw.githubusercontent.com/aspnet/Benchmarks/main/"
	rawCrank      = "https://raw.githubusercontent.com/dotnet/crank/main/"
	rawGrpcDotnet = "https://raw.githubusercontent.com/grpc/grpc-dotnet/master/"
	checkouts     = "internal/e2e/testdata/checkouts/"
)

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
// mapping to give; crank's samples/hello is refused naming --application.job; and plaintext runs
// for 2 s on the embedded agent.
func TestBenchmarksFromCheckouts(t *testing.T) {
	maps, env := importMaps()
	env = append(env, noNetwork(t)...)
	grpcVars := []string{"--variable", "path=/grpc.testing.BenchmarkService/UnaryCall", "--variable", "body=AAAAAAcKBVdvcmxk"}
	for _, c := range []struct {
		file, scenario, job, exe, load, url string
		extra                               []string
	}{
		{"plaintext", "plaintext", "plaintext", "./bin/plaintext", "wrk", "/plaintext", nil},
		{"json", "json", "json", "./bin/json", "wrk", "/json", nil},
		{"grpc", "grpcgoserver-h2loadclient", "grpc", "./bin/grpc", "h2load", "/grpc.testing.BenchmarkService/UnaryCall", grpcVars},
	} {
		t.Run(c.scenario, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "dry.json")
			args := append([]string{"--config", rawBenchmarks + "scenarios/" + c.file + ".benchmarks.yml", "--config", "profiles/local.yml",
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
		r := crankEnv(t, time.Minute, env, append([]string{"--config", rawBenchmarks + "scenarios/grpc.benchmarks.yml", "--config", "profiles/local.yml",
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

	t.Run("plaintext runs", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "out.json")
		_, ports := appPorts(t)
		args := append([]string{"--config", rawBenchmarks + "scenarios/plaintext.benchmarks.yml", "--config", "profiles/local.yml",
			"--scenario", "plaintext", "--profile", "local", "--application.job", "plaintext", "--variable", "duration=2",
			"--variable", "warmup=0", "--variable", "threads=1", "--variable", "connections=16", "--json", out}, maps...)
		r := crankEnv(t, 3*time.Minute, env, append(args, ports...)...)
		if r.code != 0 {
			t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
		}
		load := readResult(t, out).JobResults.Jobs["load"].Results
		if load["http/rps/mean"] <= 0 || load["http/requests/badresponses"] != 0 {
			t.Errorf("load results %v: want requests/s and no bad response", load)
		}
	})
}
