package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOwnAppsFillOnlyWhatIsMissing: --application.job json, which the files given do not define,
// comes from scenarios/jobs/apps.yml (and crank says so), while a job the files do define under
// one of our apps' names (plaintext) keeps their definition.
func TestOwnAppsFillOnlyWhatIsMissing(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(t.TempDir(), "theirs.yml")
	if err := os.WriteFile(cfg, []byte(`
jobs:
  plaintext:
    executable: their-plaintext
  other:
    executable: their-other
scenarios:
  s:
    application:
      job: other
    side:
      job: plaintext
`), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Chdir(root)
	stdout, stderr, code := run(t, "--config", cfg, "--scenario", "s", "--application.job", "json", "--dry-run", "-")
	if code != ExitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if !strings.Contains(stderr, "crank: note: job json is not in the files given: taken from Crankshaft's own apps") {
		t.Errorf("stderr does not say where json came from:\n%s", stderr)
	}
	if !strings.Contains(stdout, `"executable": "./bin/json"`) || !strings.Contains(stdout, `"executable": "their-plaintext"`) {
		t.Errorf("want our json app and their plaintext job:\n%s", stdout)
	}
}
