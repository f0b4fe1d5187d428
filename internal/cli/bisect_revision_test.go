package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/crankshaft/crankshaft/internal/testutil"
)

// TestBisectRevisionIsNeverAGitOption (issue 41, MEDIUM 10): `crank bisect --good=--output=FILE`
// had git log take the revision as its --output option and write FILE^{commit}; now crank refuses
// the revision, naming it, before anything runs, and no file is written.
func TestBisectRevisionIsNeverAGitOption(t *testing.T) {
	repo, _ := testutil.GitRepo(t, "echo ready\n")
	cfg := filepath.Join(t.TempDir(), "app.yml")
	if err := os.WriteFile(cfg, []byte(`
jobs:
  app:
    source: {localFolder: `+repo+`}
    executable: /bin/sh
    arguments: app.sh
    waitForExit: true
scenarios:
  s:
    application: {job: app}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "p")
	_, stderr, code := run(t, "bisect", "--config", cfg, "--scenario", "s", "--good=--output="+out, "--bad", "main")
	if want := `crank bisect: revision "--output=` + out + `": a revision does not start with "-"`; code != ExitBadInput || !strings.Contains(stderr, want) {
		t.Errorf("exit %d, want 2 and %q:\n%s", code, want, stderr)
	}
	if written, _ := filepath.Glob(out + "*"); len(written) > 0 {
		t.Errorf("git wrote %v", written)
	}
}
