//go:build measure

package e2e

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/gate"
)

// The acceptance of crank compare --base --head (issue 45), measured on this machine with the app
// and its load sharing it as in docs/BISECT.md: apps on CPU 0, loads on CPU 1 at a fixed rate.
// make measure runs them; each is 10 gates, each gate bounded by --limit 4m (the acceptance allows
// 10 minutes) and --max-rounds 40, so a test takes at most about 45 minutes (and the head's
// calibration, one more gate, for the 2 % tests).

const (
	// gateWork is the base's arithmetic on every request. The head's is calibrated on the machine
	// (twoPercentMore) to cost gateTruth more CPU a request in all: the HTTP server's own cost
	// against the arithmetic's differs from one CPU to another (4 % more arithmetic measured +1.5 to
	// +2.4 % where this test was first run, +0.5 to +2.0 % on AMD EPYC hosts: docs/GATES.md), and a
	// head whose truth is near the 1 % threshold tests the threshold, not the gate. Each gate logs
	// the change it measured.
	gateWork  = 12000
	gateTruth = 0.02
	gates     = 10
	// gateBudget is the acceptance's time for one gate.
	gateBudget = 10 * time.Minute
)

// gateArgs are one gate's arguments (the acceptance's: 2 s rounds after 1 s of warm-up at 3,000
// req/s, --threshold 1%, --limit 4m, at most 40 rounds), its JSON written to out.
func gateArgs(t *testing.T, repo, base, head, out string) []string {
	return append(compareRefsArgs(t, repo), "--variable", "duration=2", "--variable", "warmup=1",
		"--load.variables.rate", "3000", "--threshold", "1%", "--max-rounds", "40", "--limit", "4m",
		"--base", base, "--head", head, "--json", out)
}

// twoPercentMore is the head's arithmetic that costs gateTruth more CPU a request than gateWork's
// on this machine: a gate of gateWork against twice as much measures the share c of the app's CPU
// a request that gateWork steps take, and the head adds gateTruth/c of gateWork. A share outside
// 5 to 95 % means the app is not the one these tests describe, and fails the test.
func twoPercentMore(t *testing.T) int {
	t.Helper()
	repo, shas := workRepo(t, gateWork, 2*gateWork)
	out := filepath.Join(t.TempDir(), "calibration.json")
	r := crank(t, gateBudget+time.Minute, gateArgs(t, repo, shas[0], shas[1], out)...)
	if r.code != 1 {
		t.Fatalf("calibration (%d against %d steps): exit %d, want 1 (regressed)\nstdout:\n%s\nstderr:\n%s",
			gateWork, 2*gateWork, r.code, r.stdout, r.stderr)
	}
	f := readJSON[compareDoc](t, out).Compare.Figures[0]
	c := f.Change / 100
	if c < 0.05 || c > 0.95 {
		t.Fatalf("calibration: %d more steps changed the app's CPU a request by %+.1f %%, want 5 to 95 %%", gateWork, f.Change)
	}
	more := gateWork + int(math.Round(gateWork*gateTruth/c))
	t.Logf("calibration: %d steps are %.1f %% [%+.1f, %+.1f] of the app's CPU a request here; the head does %d (+%.1f %% arithmetic, %+.1f %% CPU a request)",
		gateWork, f.Change, f.Low, f.High, more, 100*float64(more-gateWork)/gateWork, 100*gateTruth)
	return more
}

// runGates runs n gates of head against base and counts their verdicts; a gate that fails to
// run, or takes longer than gateBudget, fails the test, and so does a verdict among wrong (a change
// the other way than the truth's): its stderr and rounds are logged to tell why. Every gate logs
// each round's change and the rounds run again on a disturbed machine.
func runGates(t *testing.T, repo, base, head string, n int, wrong ...gate.Verdict) map[gate.Verdict]int {
	t.Helper()
	counts := map[gate.Verdict]int{}
	for i := 1; i <= n; i++ {
		out := filepath.Join(t.TempDir(), fmt.Sprintf("gate-%d.json", i))
		start := time.Now()
		r := crank(t, gateBudget+time.Minute, gateArgs(t, repo, base, head, out)...)
		took := time.Since(start)
		if r.code != 0 && r.code != 1 && r.code != 3 {
			t.Fatalf("gate %d: exit %d\nstdout:\n%s\nstderr:\n%s", i, r.code, r.stdout, r.stderr)
		}
		s := readJSON[compareDoc](t, out).Compare
		f := s.Figures[0]
		t.Logf("gate %d: %s after %d rounds (%s), %+.2f %% [%+.2f, %+.2f], a round's spread %.2f %%, detectable %.2f %%, %d run again, %s; rounds %s",
			i, s.Verdict, s.Rounds, s.Stopped, f.Change, f.Low, f.High, f.SD, s.Detectable, s.Rerun, took.Round(time.Second), roundChanges(f.BaseRounds, f.HeadRounds))
		if took > gateBudget {
			t.Errorf("gate %d took %s, more than %s", i, took.Round(time.Second), gateBudget)
		}
		if slices.Contains(wrong, s.Verdict) {
			t.Errorf("gate %d: %s, the wrong way (exit %d)\nstdout:\n%s\nstderr:\n%s", i, s.Verdict, r.code, r.stdout, r.stderr)
		}
		counts[s.Verdict]++
	}
	t.Logf("%d gates: %v", n, counts)
	return counts
}

// roundChanges is each round's head against base as measured (positions not taken out).
func roundChanges(base, head []float64) string {
	var parts []string
	for r := range min(len(base), len(head)) {
		parts = append(parts, fmt.Sprintf("%+.1f", 100*(head[r]/base[r]-1)))
	}
	return strings.Join(parts, " ") + " %"
}

// TestCompareGateFindsTwoPercent: a head adding 2 % CPU a request (twoPercentMore) is called
// regressed in at least 9 gates of 10, and improved in none.
func TestCompareGateFindsTwoPercent(t *testing.T) {
	repo, shas := workRepo(t, gateWork, twoPercentMore(t))
	if c := runGates(t, repo, shas[0], shas[1], gates, gate.VerdictImproved); c[gate.VerdictRegressed] < 9 {
		t.Errorf("regressed in %d gates of %d, want 9 at least: %v", c[gate.VerdictRegressed], gates, c)
	}
}

// TestCompareGateBaseAgainstItself: the base against itself is called a change (regressed or
// improved) in at most 1 gate of 10 (the rest unchanged or inconclusive).
func TestCompareGateBaseAgainstItself(t *testing.T) {
	repo, shas := workRepo(t, gateWork)
	c := runGates(t, repo, shas[0], shas[0], gates)
	if changed := c[gate.VerdictRegressed] + c[gate.VerdictImproved]; changed > 1 {
		t.Errorf("a change in %d gates of %d, want 1 at most: %v", changed, gates, c)
	}
}
