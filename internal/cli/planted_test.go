package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/crankshaft/crankshaft/internal/results"
)

// planted makes, in a fresh folder, a file the test owns (the victim another user's link points
// to) and returns it with the folder.
func planted(t *testing.T) (dir, victim string) {
	t.Helper()
	dir = t.TempDir()
	victim = filepath.Join(t.TempDir(), "victim")
	if err := os.WriteFile(victim, []byte("the victim's own content\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir, victim
}

// link plants a symbolic link at dir/name to victim and returns its path.
func link(t *testing.T, victim, dir, name string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.Symlink(victim, p); err != nil {
		t.Fatal(err)
	}
	return p
}

// untouched fails the test when victim was written through a link.
func untouched(t *testing.T, victim string) {
	t.Helper()
	if b, err := os.ReadFile(victim); err != nil || string(b) != "the victim's own content\n" {
		t.Errorf("the file the planted link points to was written: %q (%v)", b, err)
	}
}

// TestPlantedLinksNotWrittenThrough (issue 41, MEDIUM 3): each file crank writes where the user
// says (--json, its temporary file, --csv, --dry-run FILE, --output-dir logs, crank report -o) is
// not written through a symbolic link another user planted there, and crank says which path
// is in the way.
func TestPlantedLinksNotWrittenThrough(t *testing.T) {
	cfg := shellConfig(t, `-c "echo done"`)
	shell := []string{"--config", cfg, "--scenario", "shell"}
	const refused = ": is a symbolic link: crank does not write through links"
	// Refused before the run (--json, --csv) or when written (--dry-run), naming the path.
	for _, c := range []struct {
		flag, name, before string
		code               int
	}{
		{"--json", "out.json", "--json %[1]s: ", ExitBadInput},
		{"--csv", "runs.csv", "--csv %[1]s: ", ExitBadInput},
		{"--dry-run", "dry.json", "crank: --dry-run %[1]s: ", ExitFailed},
	} {
		t.Run(c.flag, func(t *testing.T) {
			dir, victim := planted(t)
			out := link(t, victim, dir, c.name)
			_, stderr, code := run(t, append(shell, c.flag, out)...)
			untouched(t, victim)
			if want := fmt.Sprintf(c.before, out) + "write " + out + refused; code != c.code || !strings.Contains(stderr, want) {
				t.Errorf("exit %d, want %d and %q:\n%s", code, c.code, want, stderr)
			}
		})
	}
	t.Run("--json's temporary file", func(t *testing.T) {
		dir, victim := planted(t)
		link(t, victim, dir, "out.json.tmp") // the name crank wrote before renaming
		out := filepath.Join(dir, "out.json")
		if _, stderr, code := run(t, append(shell, "--json", out)...); code != ExitOK {
			t.Fatalf("exit %d\n%s", code, stderr)
		}
		untouched(t, victim)
		var res results.Result
		if b, err := os.ReadFile(out); err != nil || json.Unmarshal(b, &res) != nil || res.JobResults.Jobs["load"] == nil {
			t.Errorf("%s: %q (%v), want the run's results", out, b, err)
		}
		if names, _ := filepath.Glob(filepath.Join(dir, ".out.json.tmp-*")); len(names) > 0 {
			t.Errorf("temporary files left: %v", names)
		}
	})
	t.Run("--output-dir", func(t *testing.T) {
		dir, victim := planted(t)
		log := link(t, victim, dir, "application.output.log")
		_, stderr, code := run(t, append(shell, "--output-dir", dir)...)
		untouched(t, victim)
		if code != ExitOK || !strings.Contains(stderr, log+refused) {
			t.Errorf("exit %d, want the log not saved, naming %s as a link:\n%s", code, log, stderr)
		}
		if b, err := os.ReadFile(filepath.Join(dir, "load.output.log")); err != nil || !strings.Contains(string(b), "done") {
			t.Errorf("the other logs: load.output.log %q (%v), want it saved", b, err)
		}
	})
	t.Run("report -o", func(t *testing.T) {
		dir, victim := planted(t)
		res := filepath.Join(dir, "res.json")
		if _, stderr, code := run(t, append(shell, "--json", res)...); code != ExitOK {
			t.Fatalf("exit %d\n%s", code, stderr)
		}
		out := link(t, victim, dir, "report.html")
		_, stderr, code := run(t, "report", res, "-o", out)
		untouched(t, victim)
		if code != 1 || !strings.Contains(stderr, "crank report: write "+out+refused) {
			t.Errorf("exit %d, want 1 naming %s as a link:\n%s", code, out, stderr)
		}
	})
}
