package e2e

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/testutil"

	testpb "google.golang.org/grpc/interop/grpc_testing"
	"google.golang.org/protobuf/proto"
)

// teTimeout bounds each TechEmpower scenario run (builds, database, warm-up and load included).
const teTimeout = 90 * time.Second

// teArgs are a short run of scenario in file on free ports, writing the results to out.
func teArgs(t *testing.T, file, scenario, out string, extra ...string) []string {
	t.Helper()
	server := freePort(t)
	metrics := freePort(t)
	for metrics == server {
		metrics = freePort(t)
	}
	return append([]string{"--no-probe", "--config", file, "--scenario", scenario,
		"--variable", "duration=3", "--variable", "warmup=1", "--json", out,
		"--variable", "serverPort=" + strconv.Itoa(server), "--variable", "metricsPort=" + strconv.Itoa(metrics)}, extra...)
}

// loadResults runs crank to completion and returns the load service's results.
func loadResults(t *testing.T, args ...string) map[string]float64 {
	t.Helper()
	r := crank(t, teTimeout, args...)
	if r.code != 0 {
		t.Fatalf("crank %v: exit %d\nstdout:\n%s\nstderr:\n%s", args, r.code, r.stdout, r.stderr)
	}
	var out string
	for i, a := range args {
		if a == "--json" {
			out = args[i+1]
		}
	}
	return readResult(t, out).JobResults.Jobs["load"].Results
}

func needTool(t *testing.T, name string) {
	t.Helper()
	if _, err := exec.LookPath(name); err != nil {
		testutil.Missing(t, "%s is not installed (make test-deps)", name)
	}
}

// TestJSONScenario: the json scenario with the default dispatch and with a shared queue.
func TestJSONScenario(t *testing.T) {
	needTool(t, "wrk")
	for _, knobs := range [][]string{nil, {"--variable", "dispatch=shared", "--variable", "partitions=4"}} {
		name := "inline"
		if knobs != nil {
			name = "shared"
		}
		t.Run(name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out.json")
			res := loadResults(t, teArgs(t, "scenarios/json.yml", "json", out, knobs...)...)
			if rps := res["http/rps/mean"]; rps <= 0 || res["http/requests/badresponses"] != 0 || res["http/requests/errors"] != 0 {
				t.Fatalf("rps %v, bad responses %v, errors %v; want rps > 0 and none bad",
					rps, res["http/requests/badresponses"], res["http/requests/errors"])
			}
			t.Logf("json (%s): %.0f req/s", name, res["http/rps/mean"])
		})
	}
}

// TestGRPCScenarios: ghz (28 connections, 1960 calls in flight) and h2load (28 x 70 streams)
// against the grpc app, every call answered.
func TestGRPCScenarios(t *testing.T) {
	cases := []struct {
		scenario, tool string
		args           []string // parts of the resolved load arguments
	}{
		{"grpc-unary", "ghz", []string{"--connections 28 -c 1960 ", "--call grpc.testing.BenchmarkService.UnaryCall", "-O json"}},
		{"grpc-h2load", "h2load", []string{"-c 28 -m 70 ", "-d request.bin", `-H "content-type: application/grpc"`}},
		{"grpc-builtin", "builtin", []string{"load http://", "-c 28 ", "--protocol grpc -m 70 --call unary --response-size 10"}},
		{"grpc-builtin-streaming", "builtin", []string{"-c 28 ", "--protocol grpc -m 70 --call streaming --response-size 10"}},
	}
	for _, c := range cases {
		t.Run(c.scenario, func(t *testing.T) {
			if c.tool == "h2load" {
				needTool(t, "h2load")
			}
			dir := t.TempDir()
			job := dryRunLoad(t, c.scenario)
			for _, part := range c.args {
				if !strings.Contains(job.Arguments, part) {
					t.Fatalf("load arguments %q lack %q", job.Arguments, part)
				}
			}
			res := loadResults(t, teArgs(t, "scenarios/grpc.yml", c.scenario, filepath.Join(dir, "out.json"))...)
			if rps := res["http/rps/mean"]; rps <= 0 || res["http/requests"] <= 0 || res["http/requests/errors"] != 0 ||
				res["http/requests/badresponses"] != 0 {
				t.Fatalf("results %v; want rps > 0, no errors, no bad responses", res)
			}
			t.Logf("%s: %.0f calls/s, %.0f calls", c.scenario, res["http/rps/mean"], res["http/requests"])
		})
	}
}

// dryJob is the part of a --dry-run service the tests read.
type dryJob struct {
	Arguments    string         `json:"arguments"`
	BuildCommand string         `json:"buildCommand"`
	Variables    map[string]any `json:"variables"`
}

// dryRunLoad resolves a grpc scenario and returns its load service.
func dryRunLoad(t *testing.T, scenario string, extra ...string) dryJob {
	t.Helper()
	r := crank(t, 30*time.Second, append([]string{"--config", "scenarios/grpc.yml", "--scenario", scenario, "--dry-run", "-"}, extra...)...)
	if r.code != 0 {
		t.Fatalf("dry run: exit %d\n%s", r.code, r.stderr)
	}
	var dry struct {
		Services map[string]dryJob `json:"services"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &dry); err != nil {
		t.Fatalf("dry run JSON: %v\n%s", err, r.stdout)
	}
	return dry.Services["load"]
}

// TestGRPCH2loadBody: the body file the grpc-h2load build command writes is one gRPC-framed
// SimpleRequest asking for responseSize bytes, for one- and two-byte varints.
func TestGRPCH2loadBody(t *testing.T) {
	for _, size := range []int{0, 10, 127, 128, 300, 16383} {
		job := dryRunLoad(t, "grpc-h2load", "--variable", "responseSize="+strconv.Itoa(size))
		dir := t.TempDir()
		cmd := exec.Command("/bin/sh", "-c", job.BuildCommand)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("size %d: build command %q: %v\n%s", size, job.BuildCommand, err, out)
		}
		body, err := os.ReadFile(filepath.Join(dir, "request.bin"))
		if err != nil {
			t.Fatal(err)
		}
		if len(body) < 5 || body[0] != 0 || int(binary.BigEndian.Uint32(body[1:5])) != len(body)-5 {
			t.Fatalf("size %d: body % x is not one uncompressed gRPC frame", size, body)
		}
		var req testpb.SimpleRequest
		if err := proto.Unmarshal(body[5:], &req); err != nil || req.GetResponseSize() != int32(size) {
			t.Fatalf("size %d: body % x decodes to %v (%v)", size, body, &req, err)
		}
	}
}

// pgSetup prepares a fortunes run, or skips without PostgreSQL's server programs. It points TMPDIR
// at a new folder every user can search: the embedded agent's job folders go there, so a process
// working under it belongs to this test's run. It returns the folder, the database port and the
// extra arguments (that port; dbUser= when the test is not root, so PostgreSQL runs as the agent).
func pgSetup(t *testing.T) (tmp, port string, extra []string) {
	t.Helper()
	needTool(t, "wrk")
	if _, err := exec.LookPath("initdb"); err != nil {
		if _, err := exec.LookPath("pg_config"); err != nil {
			testutil.Missing(t, "PostgreSQL is not installed (no initdb on PATH, no pg_config): make test-deps installs it")
		}
	}
	tmp, err := os.MkdirTemp("", "crank-te-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(tmp) })
	if err := os.Chmod(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TMPDIR", tmp)
	port = strconv.Itoa(freePort(t))
	extra = []string{"--variable", "dbPort=" + port}
	if os.Geteuid() != 0 {
		extra = append(extra, "--variable", "dbUser=")
	}
	return tmp, port, extra
}

// pgProc is a PostgreSQL process (the server or one of its children).
type pgProc struct{ pid, uid int }

// postgresUnder lists the postgres processes whose working folder is under dir (the server and
// its children all work in the data folder).
func postgresUnder(dir string) []pgProc {
	var found []pgProc
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		comm, _ := os.ReadFile("/proc/" + e.Name() + "/comm")
		cwd, _ := os.Readlink("/proc/" + e.Name() + "/cwd")
		fi, err := os.Stat("/proc/" + e.Name())
		if err != nil || strings.TrimSpace(string(comm)) != "postgres" || !strings.HasPrefix(cwd, dir+"/") {
			continue
		}
		found = append(found, pgProc{pid, int(fi.Sys().(*syscall.Stat_t).Uid)})
	}
	return found
}

// waitPostgres polls until PostgreSQL runs under dir, and fails if stop closes first or after d.
func waitPostgres(t *testing.T, dir string, stop <-chan struct{}, d time.Duration) []pgProc {
	t.Helper()
	deadline := time.After(d)
	for {
		if ps := postgresUnder(dir); len(ps) > 0 {
			return ps
		}
		select {
		case <-stop:
			t.Fatal("crank ended before PostgreSQL was seen running")
		case <-deadline:
			t.Fatalf("no PostgreSQL process under %s within %s", dir, d)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// waitNoPostgres polls until no PostgreSQL process is left under dir nor on port, or fails after d.
func waitNoPostgres(t *testing.T, dir, port string, d time.Duration) {
	t.Helper()
	var left []pgProc
	var onPort []int
	if !testutil.Within(d, func() bool {
		left, onPort = postgresUnder(dir), processesWith("postgres", "-p "+port)
		return len(left) == 0 && len(onPort) == 0
	}) {
		t.Fatalf("PostgreSQL processes left after %s: under %s %v, on port %s %v", d, dir, left, port, onPort)
	}
}

// checkOwner: when the test is root, PostgreSQL runs as the postgres user (the db job's `user`).
func checkOwner(t *testing.T, ps []pgProc) {
	t.Helper()
	want := os.Geteuid()
	if want == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			t.Fatal(err)
		}
		want, _ = strconv.Atoi(u.Uid)
	}
	for _, p := range ps {
		if p.uid != want {
			t.Errorf("postgres process %d runs as uid %d, want %d", p.pid, p.uid, want)
		}
	}
}

// TestFortunesScenario: PostgreSQL started for the run (as the postgres user), the fortunes app
// querying it under wrk, every response good, and no PostgreSQL process or folder left after.
func TestFortunesScenario(t *testing.T) {
	tmp, port, extra := pgSetup(t)
	out := filepath.Join(t.TempDir(), "out.json")
	ctx, cancel := context.WithTimeout(context.Background(), teTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(testEnv.bins, "crank"), teArgs(t, "scenarios/fortunes.yml", "fortunes", out, extra...)...)
	cmd.Dir = testEnv.root
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ended := make(chan struct{})
	var err error
	go func() { err = cmd.Wait(); close(ended) }()
	checkOwner(t, waitPostgres(t, tmp, ended, teTimeout))
	<-ended
	if err != nil {
		t.Fatalf("crank: %v\nstdout:\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
	}
	jobs := readResult(t, out).JobResults.Jobs
	load, db := jobs["load"].Results, jobs["db"].Results
	if rps := load["http/rps/mean"]; rps <= 0 || load["http/requests/badresponses"] != 0 || load["http/requests/errors"] != 0 {
		t.Errorf("load: rps %v, bad responses %v, errors %v; want rps > 0 and none bad",
			rps, load["http/requests/badresponses"], load["http/requests/errors"])
	}
	if db["benchmarks/start-time"] <= 0 {
		t.Errorf("db results %v: no start time", db)
	}
	waitNoPostgres(t, tmp, port, 5*time.Second)
	if left, _ := filepath.Glob(filepath.Join(tmp, "crank-agent-*")); len(left) != 0 {
		t.Errorf("agent folders left: %v", left)
	}
	t.Logf("fortunes: %.0f req/s, database ready in %.0f ms", load["http/rps/mean"], db["benchmarks/start-time"])
}

// TestFortunesKilledCrankLeavesNoPostgres: PostgreSQL is the db job's own process (not a
// grandchild), so the parent-death signal ends it when crank is killed, and its children follow.
func TestFortunesKilledCrankLeavesNoPostgres(t *testing.T) {
	tmp, port, extra := pgSetup(t)
	args := append([]string{"--no-probe", "--config", "scenarios/fortunes.yml", "--scenario", "fortunes",
		"--variable", "duration=60", "--variable", "warmup=0",
		"--variable", "serverPort=" + strconv.Itoa(freePort(t)), "--variable", "metricsPort=0"}, extra...)
	cmd := startCrankUntilLoad(t, args...)
	if len(postgresUnder(tmp)) == 0 {
		t.Fatal("PostgreSQL is not running (cannot test cleanup)")
	}
	_ = cmd.Process.Signal(syscall.SIGKILL)
	waitNoPostgres(t, tmp, port, 10*time.Second)
}

// TestTechEmpowerProfile: the lab profile sends each fortunes service to its machine, points the
// app at the database machine, and caps wrk's threads at the level's connections.
func TestTechEmpowerProfile(t *testing.T) {
	for _, c := range []struct{ connections, threads string }{{"16", "16"}, {"512", "28"}} {
		r := crank(t, 30*time.Second, "--config", "scenarios/fortunes.yml", "--config", "profiles/techempower.yml",
			"--profile", "techempower", "--scenario", "fortunes", "--variable", "connections="+c.connections, "--dry-run", "-")
		if r.code != 0 {
			t.Fatalf("dry run: exit %d\n%s", r.code, r.stderr)
		}
		var dry struct {
			Services map[string]struct {
				Arguments string   `json:"arguments"`
				Endpoints []string `json:"endpoints"`
			} `json:"services"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &dry); err != nil {
			t.Fatal(err)
		}
		want := map[string][]string{
			"db":          {"http://10.0.0.2:5010", "-p 5432 -c listen_addresses=* -c max_connections=2000"},
			"application": {"http://10.0.0.1:5010", "--address 10.0.0.1 --port 8080", "@10.0.0.2:5432/hello_world"},
			"load":        {"http://10.0.0.3:5010", "-c " + c.connections + " -t " + c.threads + " -d 15s", "http://10.0.0.1:8080/fortunes"},
		}
		for svc, w := range want {
			s := dry.Services[svc]
			if len(s.Endpoints) != 1 || s.Endpoints[0] != w[0] {
				t.Errorf("%s: endpoints %v, want [%s]", svc, s.Endpoints, w[0])
			}
			for _, part := range w[1:] {
				if !strings.Contains(s.Arguments, part) {
					t.Errorf("connections %s: %s arguments %q lack %q", c.connections, svc, s.Arguments, part)
				}
			}
		}
	}
}
