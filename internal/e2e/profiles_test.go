package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/agent/profiler"
	"github.com/crankshaft/crankshaft/internal/testutil"
)

// profiledResult is the part of crank's JSON about profiles.
type profiledResult struct {
	JobResults struct {
		Jobs map[string]struct {
			Profiles []struct {
				Name  string `json:"name"`
				Path  string `json:"path"`
				Error string `json:"error"`
				Top   []struct {
					Name string `json:"name"`
				} `json:"top"`
			} `json:"profiles"`
		} `json:"jobs"`
	} `json:"jobResults"`
}

// plaintextProfiled is crank's plaintext scenario with the app profiled by perf and Go's
// profiles, short runs, results in dir.
func plaintextProfiled(t *testing.T, dir string, args ...string) []string {
	t.Helper()
	_, ports := appPorts(t)
	return slices.Concat([]string{"--no-probe", "--config", "scenarios/plaintext.yml", "--scenario", "plaintext", "--profile", "local",
		"--variable", "duration=2", "--variable", "warmup=0", "--variable", "mutexProfileFraction=5",
		"--application.collect", "true", "--application.goProfiles", "true",
		"--output-dir", dir, "--json", filepath.Join(dir, "r.json")}, ports, args)
}

// TestProfilesPlaintext: the plaintext app under wrk with --application.collect true and
// goProfiles: every profile is saved, named in the JSON, readable by go tool pprof, with the
// app's own functions named, and its top functions printed under its table.
func TestProfilesPlaintext(t *testing.T) {
	if err := profiler.Probe(context.Background()); err != nil {
		testutil.Missing(t, "%v", err)
	}
	if _, err := exec.LookPath("wrk"); err != nil {
		testutil.Missing(t, "wrk is not on PATH")
	}
	dir := t.TempDir()
	r := crank(t, 3*time.Minute, plaintextProfiled(t, dir)...)
	if r.code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	mustContain(t, "stdout", r.stdout, "application profile perf-cpu: ", "application profile go-cpu: ", "saved as "+dir)
	doc := readJSON[profiledResult](t, filepath.Join(dir, "r.json"))
	saved := map[string]bool{}
	for _, p := range doc.JobResults.Jobs["application"].Profiles {
		if p.Path == "" {
			t.Logf("%s: not saved: %s", p.Name, p.Error)
			continue
		}
		saved[p.Name] = true
		out, err := exec.Command("go", "tool", "pprof", "-top", p.Path).CombinedOutput()
		if err != nil {
			t.Errorf("go tool pprof -top %s: %v\n%s", p.Path, err, out)
		}
		if p.Name != "go-mutex" && !strings.Contains(string(out), "internal/app/httpserver") {
			t.Errorf("%s: the app's functions are not named:\n%s", p.Name, out)
		}
	}
	for _, name := range []string{"perf-cpu", "go-cpu"} {
		if !saved[name] {
			t.Errorf("profile %s not saved: %+v", name, doc.JobResults.Jobs["application"].Profiles)
		}
	}
	// crank report draws them: a flame graph each, inline, naming the app's functions.
	page := filepath.Join(dir, "report.html")
	if rr := crank(t, time.Minute, "report", filepath.Join(dir, "r.json"), "-o", page); rr.code != 0 {
		t.Fatalf("crank report: exit %d\n%s\n%s", rr.code, rr.stdout, rr.stderr)
	}
	html, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	mustContain(t, "the report", string(html), "<h2>Flame graphs</h2>", "r.json: application, perf-cpu", "<title>github.com/crankshaft/crankshaft/internal/app/httpserver.")
}

// TestBenchmarksPlaintextCollect: aspnet/Benchmarks' plaintext scenario on our app
// (--application.job plaintext) with --application.collect true gives a perf profile, saved, and
// a flame graph in crank report's page.
func TestBenchmarksPlaintextCollect(t *testing.T) {
	if err := profiler.Probe(context.Background()); err != nil {
		testutil.Missing(t, "%v", err)
	}
	maps, env := importMaps()
	env = append(env, noNetwork(t)...)
	dir := t.TempDir()
	out := filepath.Join(dir, "out.json")
	_, ports := appPorts(t)
	args := slices.Concat([]string{"--config", rawBenchmarks + "scenarios/plaintext.benchmarks.yml", "--config", "profiles/local.yml",
		"--scenario", "plaintext", "--profile", "local", "--application.job", "plaintext", "--application.collect", "true",
		"--variable", "duration=2", "--variable", "warmup=0", "--variable", "threads=1", "--variable", "connections=16",
		"--json", out}, maps, ports)
	r := crankEnv(t, 3*time.Minute, env, args...)
	if r.code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	mustContain(t, "stdout", r.stdout, "application profile perf-cpu: ", "saved as "+filepath.Join(dir, "application.perf-cpu.pb.gz"))
	page := filepath.Join(dir, "report.html")
	if rr := crank(t, time.Minute, "report", out, "-o", page); rr.code != 0 {
		t.Fatalf("crank report: exit %d\n%s\n%s", rr.code, rr.stdout, rr.stderr)
	}
	html, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	mustContain(t, "the report", string(html), "<h2>Flame graphs</h2>", "out.json: application, perf-cpu", `<svg class="flame"`)
}
