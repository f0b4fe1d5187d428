package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// capacityScenario is the plaintext scenario with the built-in load and a capacity section.
func capacityScenario(t *testing.T, section string) string {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "cap.yml")
	yml := "imports:\n  - " + filepath.Join(root, "scenarios/plaintext.yml") + "\n  - " + filepath.Join(root, "scenarios/jobs/builtin.yml") +
		"\nscenarios:\n  capped:\n    application:\n      job: plaintext\n    load:\n      job: builtin\n" + section
	if err := os.WriteFile(path, []byte(yml), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestCapacitySection: a scenario's capacity: section gives the SLOs and the search's bounds; the
// flags win over it; its mistakes are refused before anything runs, naming the line and key.
func TestCapacitySection(t *testing.T) {
	run := func(args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		code := Run(context.Background(), State{Args: append([]string{"capacity"}, args...), Stdout: &out, Stderr: &errb})
		return code, out.String(), errb.String()
	}
	cfg := capacityScenario(t, "    capacity:\n      slo:\n        - load:http/latency/99 < 10\n      startRate: 1234\n      stepDuration: 2\n")
	code, out, errOut := run("--config", cfg, "--scenario", "capped", "--dry-run", "-")
	if code != ExitOK || !strings.Contains(out, "1234") {
		t.Errorf("section's startRate: exit %d, want the first step at 1234 req/s in the dry run\n%s\n%s", code, errOut, out)
	}
	code, out, _ = run("--config", cfg, "--scenario", "capped", "--start-rate", "777", "--dry-run", "-")
	if code != ExitOK || !strings.Contains(out, "777") || strings.Contains(out, "1234") {
		t.Errorf("--start-rate over the section: exit %d, want 777 alone\n%s", code, out)
	}
	// One parser: the flag and the key refuse the same text with the same words.
	code, _, errOut = run("--config", cfg, "--scenario", "capped", "--start-rate", "fast", "--dry-run", "-")
	if code != ExitBadInput || !strings.Contains(errOut, `--start-rate "fast": want a number of at least 1`) {
		t.Errorf("--start-rate fast: exit %d, %q", code, errOut)
	}
	for _, c := range []struct{ section, want string }{
		{"    capacity:\n      slo: [load:http/latency/99 < 10]\n      startRate: fast\n", `cap.yml:12: scenario "capped": capacity: startRate "fast": want a number of at least 1`},
		{"    capacity:\n      slo: [load:http/latency/p99 < 10]\n", "http/latency/p99 is not a figure crank knows; did you mean http/latency/99?"},
		{"    capacity:\n      slo: [latency is low]\n", `cap.yml:11: scenario "capped": capacity: slo: threshold "latency is low": want [service:]metric OP number`},
		{"    capacity:\n      slo: [load:http/latency/99 < 10]\n      startrate: 5\n", `cap.yml:12: scenario "capped": capacity: unknown key "startrate"`},
		{"    capacity:\n      maxTime: 5m\n", "needs at least one --slo"},
	} {
		code, _, errOut := run("--config", capacityScenario(t, c.section), "--scenario", "capped", "--dry-run", "-")
		if code != ExitBadInput || !strings.Contains(errOut, c.want) {
			t.Errorf("%q: exit %d, %q; want 2 and %q", c.section, code, errOut, c.want)
		}
	}
}

// TestCapacityMatrixDryRun: --matrix resolves every variant before anything runs and writes each
// one's first step; a variant that does not resolve is refused naming it.
func TestCapacityMatrixDryRun(t *testing.T) {
	cfg := capacityScenario(t, "    capacity:\n      slo: [load:http/latency/99 < 10]\n")
	var out, errb bytes.Buffer
	code := Run(context.Background(), State{Args: []string{"capacity", "--config", cfg, "--scenario", "capped",
		"--matrix", "dispatch=shared,partitioned", "--dry-run", "-"}, Stdout: &out, Stderr: &errb})
	if code != ExitOK || strings.Count(out.String(), "--dispatch shared") != 1 || strings.Count(out.String(), "--dispatch partitioned") != 1 {
		t.Errorf("exit %d: want each variant's first step once\n%s\n%s", code, errb.String(), out.String())
	}
	errb.Reset()
	code = Run(context.Background(), State{Args: []string{"capacity", "--config", cfg, "--scenario", "capped",
		"--matrix", "nosuch.cpuSet=0,1", "--dry-run", "-"}, Stdout: &out, Stderr: &errb})
	if code != ExitBadInput || !strings.Contains(errb.String(), `variant cpuSet=0: `) {
		t.Errorf("bad variant: exit %d, %q", code, errb.String())
	}
}

// TestCapacityReadsTheImportMap: crank capacity reads a scenario given by URL from the checkouts
// --import-map names, its capacity: section and its imports included, without the network (a
// proxy on a closed port would refuse any fetch).
func TestCapacityReadsTheImportMap(t *testing.T) {
	t.Setenv("HTTPS_PROXY", "http://127.0.0.1:1")
	t.Setenv("HTTP_PROXY", "http://127.0.0.1:1")
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	yml := "imports:\n  - https://lab.invalid/repo/scenarios/plaintext.yml\n  - https://lab.invalid/repo/scenarios/jobs/builtin.yml\n" +
		"scenarios:\n  capped:\n    application:\n      job: plaintext\n    load:\n      job: builtin\n" +
		"    capacity:\n      slo:\n        - load:http/latency/99 < 10\n      startRate: 4321\n"
	if err := os.WriteFile(filepath.Join(dir, "cap.yml"), []byte(yml), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	code := Run(context.Background(), State{Args: []string{"capacity", "--import-map", "https://lab.invalid/files/=" + dir,
		"--import-map", "https://lab.invalid/repo/=" + root,
		"--config", "https://lab.invalid/files/cap.yml", "--scenario", "capped", "--application.source.localFolder", root,
		"--dry-run", "-"}, Stdout: &out, Stderr: &errb})
	if code != ExitOK || !strings.Contains(out.String(), "4321") {
		t.Errorf("exit %d, want the section's first step (4321 req/s) read through the mapping\n%s\n%s", code, errb.String(), out.String())
	}
}
