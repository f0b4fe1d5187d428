package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestResultScriptBombKeepsTheRun: an onResultsCreated script whose one built-in call cannot be
// interrupted (new Array(1e8).fill(1), long past the 10 s grace: goja checks its interrupt between instructions) ends crank,
// as the third audit of issue 25 made it; the run it ends has been measured, and that is written
// first: the JSON holds the load's requests/s, the failure names the script, and crank exits 1
// (the run failed), not 2 (bad input).
func TestResultScriptBombKeepsTheRun(t *testing.T) {
	start := time.Now()
	r, out := withResultScript(t, "bomb.yml", "var a = new Array(1e8).fill(1); benchmarks.properties.n = String(a.length);")
	if r.code != 1 {
		t.Fatalf("exit %d after %v, want 1\nstdout:\n%s\nstderr:\n%s", r.code, time.Since(start).Round(time.Second), r.stdout, r.stderr)
	}
	mustContain(t, "stderr", r.stderr, "bomb.yml", "onResultsCreated")
	res := readResult(t, out)
	if res.ReturnCode != 1 {
		t.Errorf("returnCode %d in the JSON, want 1", res.ReturnCode)
	}
	if rps := res.JobResults.Jobs["load"].Results["http/rps/mean"]; rps <= 0 {
		t.Errorf("load http/rps/mean = %v: the measured run was lost", rps)
	}
	b, _ := os.ReadFile(out)
	if !strings.Contains(string(b), "did not stop within") && !strings.Contains(string(b), "cannot be interrupted") {
		t.Errorf("the JSON's failures do not say why the script was ended:\n%.2000s", b)
	}
}

// TestResultScriptErrorInTheJSON: an onResultsCreated script that throws fails the run (exit 1)
// and the JSON's failures say so, beside what was measured (the verdict's own failures, written
// after the scripts ran, once replaced it: the JSON said the run failed and not why).
func TestResultScriptErrorInTheJSON(t *testing.T) {
	r, out := withResultScript(t, "throws.yml", "throw 'no figure today';")
	if r.code != 1 {
		t.Fatalf("exit %d, want 1\nstderr:\n%s", r.code, r.stderr)
	}
	res := readResult(t, out)
	if got := strings.Join(res.Failures, "\n"); !strings.Contains(got, "no figure today") || !strings.Contains(got, "throws.yml") {
		t.Errorf("the JSON's failures %q do not give the script's error", res.Failures)
	}
	if res.ReturnCode != 1 || res.JobResults.Jobs["load"].Results["http/rps/mean"] <= 0 {
		t.Errorf("returnCode %d, load http/rps/mean %v: want 1 and the measured figure", res.ReturnCode, res.JobResults.Jobs["load"].Results["http/rps/mean"])
	}
}

// withResultScript runs the plaintext scenario for 1 s with the built-in load and a configuration
// file (named file) whose one onResultsCreated script is script; it returns crank's run and the
// JSON's path.
func withResultScript(t *testing.T, file, script string) (runResult, string) {
	t.Helper()
	dir := t.TempDir()
	cfg := filepath.Join(dir, file)
	if err := os.WriteFile(cfg, []byte("onResultsCreated:\n  - "+script+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.json")
	_, ports := appPorts(t)
	args := append([]string{"--config", "scenarios/plaintext.yml", "--config", cfg, "--scenario", "plaintext",
		"--load.job", "builtin", "--variable", "duration=1", "--variable", "warmup=0", "--json", out}, ports...)
	return crank(t, 2*time.Minute, args...), out
}
