package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/testutil"
)

// TestPlaintextEmbedded is the README's first command, shortened: the plaintext scenario on the
// agent embedded in crank, with wrk and then with bombardier.
func TestPlaintextEmbedded(t *testing.T) {
	for _, load := range []string{"", "bombardier"} {
		name := load
		if name == "" {
			name = "default"
		}
		t.Run(name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out.json")
			_, ports := appPorts(t)
			args := append([]string{"--no-probe", "--config", "scenarios/plaintext.yml", "--scenario", "plaintext",
				"--variable", "duration=3", "--variable", "warmup=1", "--json", out}, ports...)
			if load != "" {
				args = append(args, "--load.job", load)
			}
			r := crank(t, 3*time.Minute, args...)
			if r.code != 0 {
				t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
			}
			mustContain(t, "stdout", r.stdout, "| application ", "| load ", "http/rps/mean", "benchmarks/cpu")
			res := readResult(t, out)
			rps := res.JobResults.Jobs["load"].Results["http/rps/mean"]
			cpu := res.JobResults.Jobs["application"].Results["benchmarks/cpu"]
			if rps <= 0 || cpu <= 0 {
				t.Fatalf("http/rps/mean = %v, application benchmarks/cpu = %v; want both > 0", rps, cpu)
			}
			if res.StartTime.IsZero() || time.Since(res.StartTime) > 10*time.Minute {
				t.Errorf("startTime %v", res.StartTime)
			}
			if bad := res.JobResults.Jobs["load"].Results["http/requests/badresponses"]; bad != 0 {
				t.Errorf("bad responses: %v", bad)
			}
			t.Logf("%s: %.0f req/s, server CPU %.0f%%", name, rps, cpu)
		})
	}
}

// TestIterations keeps each iteration's results and averages them.
func TestIterations(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out.json")
	_, ports := appPorts(t)
	r := crank(t, 3*time.Minute, append([]string{"--no-probe", "--config", "scenarios/plaintext.yml", "--scenario", "plaintext",
		"--variable", "duration=1", "--variable", "warmup=0", "--iterations", "2", "--json", out}, ports...)...)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	load := readResult(t, out).JobResults.Jobs["load"]
	if len(load.Iterations) != 2 {
		t.Fatalf("iterations: %d, want 2", len(load.Iterations))
	}
	a, b := load.Iterations[0]["http/rps/mean"], load.Iterations[1]["http/rps/mean"]
	if got, want := load.Results["http/rps/mean"], (a+b)/2; a <= 0 || b <= 0 || got != want {
		t.Errorf("mean rps %v, want (%v+%v)/2", got, a, b)
	}
}

// TestPlaintextWithoutWrk is the README's first command on a machine without wrk: PATH holds
// only go and sh, and crank uses its built-in load generator.
func TestPlaintextWithoutWrk(t *testing.T) {
	bin := t.TempDir()
	for _, tool := range []string{"go", "sh"} {
		p, err := exec.LookPath(tool)
		if err != nil {
			testutil.Missing(t, "%s not found", tool)
		}
		if err := os.Symlink(p, filepath.Join(bin, tool)); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(t.TempDir(), "out.json")
	_, ports := appPorts(t)
	r := crankEnv(t, 3*time.Minute, []string{"PATH=" + bin}, append([]string{"--no-probe", "--config", "scenarios/plaintext.yml",
		"--scenario", "plaintext", "--variable", "duration=2", "--variable", "warmup=1", "--json", out}, ports...)...)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	mustContain(t, "stderr", r.stderr, "wrk is not installed")
	load := readResult(t, out).JobResults.Jobs["load"]
	if load.Environment["job"] != "builtin" || load.Results["http/rps/mean"] <= 0 {
		t.Errorf("load ran %v at %v req/s; want builtin > 0", load.Environment["job"], load.Results["http/rps/mean"])
	}
}
