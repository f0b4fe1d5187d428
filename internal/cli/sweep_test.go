package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSweepBadInput: problems with a sweep's command line or its variants are said before
// anything runs (exit 2), naming the flag, key or variant.
func TestSweepBadInput(t *testing.T) {
	plain := []string{"sweep", "--config", "../../scenarios/plaintext.yml", "--scenario", "plaintext"}
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "no --matrix given"},
		{[]string{"--matrix", "application.cpuSet=0,1-0"}, `--matrix application.cpuSet: cpuSet "1-0": range "1-0" is backwards`},
		{[]string{"--matrix", "dispatch"}, `--matrix "dispatch": want key=value1,value2`},
		{[]string{"--matrix", "nosuch.cpuSet=0"}, `variant cpuSet=0: command line: --nosuch.cpuSet: scenario "plaintext" has no service "nosuch"`},
		{[]string{"--matrix", "dispatch=a,b", "--baseline", "x"}, `--baseline: no variant "x"`},
		{[]string{"--matrix", "dispatch=a", "--resume", "--json", filepath.Join(t.TempDir(), "none.json")}, "--resume: open"},
	} {
		var out, errb bytes.Buffer
		code := Run(context.Background(), State{Args: append(append([]string{}, plain...), c.args...), Stdout: &out, Stderr: &errb})
		if code != ExitBadInput || !strings.Contains(errb.String(), c.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", c.args, code, errb.String(), c.want)
		}
	}
}

// TestSweepDryRun: --dry-run resolves every variant and writes their jobs, running nothing.
func TestSweepDryRun(t *testing.T) {
	dir := t.TempDir()
	var out, errb bytes.Buffer
	code := Run(context.Background(), State{Args: []string{"sweep", "--config", "../../scenarios/plaintext.yml",
		"--scenario", "plaintext", "--matrix", "dispatch=shared,partitioned", "--json", filepath.Join(dir, "s.json"),
		"--dry-run", "-"}, Stdout: &out, Stderr: &errb})
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	for _, want := range []string{`"name": "dispatch=shared"`, `"name": "dispatch=partitioned"`, "--dispatch shared", "--dispatch partitioned"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("dry run lacks %q:\n%s", want, out.String())
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "s.json")); err == nil {
		t.Error("a dry run wrote the sweep file")
	}
}
