//go:build measure

package e2e

import (
	"context"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/diagnose"
)

// Helpers of the measuring tests only (verdicts, capacity, bisect): how busy the machine was
// outside a run and what a test accepts then, the shipped plaintext scenario's arguments, a burner.

// busyOutside is the share of the machine used outside a run (outsideShare) from which a test
// accepts machine-busy in place of its own verdict: below the diagnosis's OtherShare, since the test
// measures the whole run and the agent its measured window.
const busyOutside = 0.12

// quietOutside is the share of the machine used outside a run (outsideShare) up to which a test
// calls the machine quiet and judges a measurement that other work moves (a capacity near its
// knee, a bisect's "no commit is worse"); a quiet run here reads 0 %.
const quietOutside = 0.05

// want fails unless the verdict is kind, or machine-busy while the test's own measure saw at least
// busyOutside of the machine used outside the run. It reports whether the verdict is kind.
func (v verdictRun) want(t *testing.T, kind string, probe bool) bool {
	t.Helper()
	switch {
	case v.verdict.Kind == kind:
		if v.probed != probe {
			t.Errorf("%s: the probe ran: %v, want %v\nstderr:\n%s", kind, v.probed, probe, v.stderr)
		}
		return true
	case v.verdict.Kind == diagnose.MachineBusy && v.outside >= busyOutside:
		t.Logf("verdict machine-busy in place of %s: %.0f %% of the machine was used outside the run", kind, 100*v.outside)
	default:
		t.Errorf("verdict %s, want %s (outside the run: %.0f %% of the machine): %s", v.verdict.Kind, kind, 100*v.outside, v.verdict.Message)
	}
	return false
}

// plaintextArgs are crank's arguments for the shipped plaintext scenario on free ports, 3
// measured seconds after 1 of warm-up.
func plaintextArgs(t *testing.T, args ...string) []string {
	t.Helper()
	_, ports := appPorts(t)
	return slices.Concat([]string{"--config", "scenarios/plaintext.yml", "--scenario", "plaintext",
		"--variable", "duration=3", "--variable", "warmup=1"}, ports, args)
}

// burner runs testdata/burn at percent of one core for at most limit, and stops it when the
// test ends: other work on the machine, outside the run.
func burner(t *testing.T, percent int, limit time.Duration) {
	t.Helper()
	dir := t.TempDir()
	build := exec.Command("go", "build", "-o", filepath.Join(dir, "burn"), ".")
	build.Dir = filepath.Join(testEnv.root, "internal/e2e/testdata/burn")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building burn: %v\n%s", err, out)
	}
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	cmd := exec.CommandContext(ctx, filepath.Join(dir, "burn"), "-percent", strconv.Itoa(percent), "-duration", limit.String())
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); _ = cmd.Wait() })
}
