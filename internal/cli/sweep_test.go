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

// TestSweepSharedCoresNote: a cpuSet sweep says, before it runs, which services on the same agent
// may take their CPU from the swept cores, naming the variants; a load pinned elsewhere is quiet.
func TestSweepSharedCoresNote(t *testing.T) {
	for _, c := range []struct {
		extra []string
		want  string // "" for no note
	}{
		{nil, "(cpuSet=0; cpuSet=0-1)"},
		{[]string{"--load.cpuSet", "1"}, "(cpuSet=0-1)"},
		{[]string{"--load.cpuSet", "2-3"}, ""},
	} {
		var out, errb bytes.Buffer
		args := append([]string{"sweep", "--config", "../../scenarios/plaintext.yml", "--scenario", "plaintext",
			"--matrix", "application.cpuSet=0,0-1", "--json", filepath.Join(t.TempDir(), "s.json"), "--dry-run", "-"}, c.extra...)
		if code := Run(context.Background(), State{Args: args, Stdout: &out, Stderr: &errb}); code != ExitOK {
			t.Fatalf("%v: exit %d: %s", c.extra, code, errb.String())
		}
		note := "note: load runs on the same agent as application and may use the cores application.cpuSet sweeps " + c.want
		switch got := errb.String(); {
		case c.want == "" && strings.Contains(got, "note:"):
			t.Errorf("%v: unexpected note %q", c.extra, got)
		case c.want != "" && !strings.Contains(got, note):
			t.Errorf("%v: stderr %q, want %q", c.extra, got, note)
		}
	}
}
