//go:build measure

package e2e

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/gate"
)

// The acceptance of crank compare --base --head (issue 45), measured on this machine with the app
// and its load sharing it as in docs/BISECT.md: apps on CPU 0, loads on CPU 1 at a fixed rate.
// make measure runs them; each is 10 gates, each gate bounded by --limit 4m (the acceptance allows
// 10 minutes) and --max-rounds 40, so a test takes at most about 45 minutes.

const (
	// gateWork is the base's arithmetic on every request; gateMore the head's, 4 % more of it:
	// with the HTTP server's own cost about as large (15 to 25 µs a request here, the arithmetic
	// about 1.4 ns a step), about 2 % more CPU a request in all. Each gate logs the change it
	// measured.
	gateWork = 12000
	gateMore = 12480
	gates    = 10
	// gateBudget is the acceptance's time for one gate.
	gateBudget = 10 * time.Minute
)

// runGates runs n gates of head against base and counts their verdicts; a gate that fails to
// run, or takes longer than gateBudget, fails the test.
func runGates(t *testing.T, repo, base, head string, n int) map[gate.Verdict]int {
	t.Helper()
	counts := map[gate.Verdict]int{}
	for i := 1; i <= n; i++ {
		out := filepath.Join(t.TempDir(), fmt.Sprintf("gate-%d.json", i))
		start := time.Now()
		r := crank(t, gateBudget+time.Minute, append(compareRefsArgs(t, repo), "--variable", "duration=2", "--variable", "warmup=1",
			"--load.variables.rate", "3000", "--threshold", "1%", "--max-rounds", "40", "--limit", "4m",
			"--base", base, "--head", head, "--json", out)...)
		took := time.Since(start)
		if r.code != 0 && r.code != 1 && r.code != 3 {
			t.Fatalf("gate %d: exit %d\nstdout:\n%s\nstderr:\n%s", i, r.code, r.stdout, r.stderr)
		}
		s := readJSON[compareDoc](t, out).Compare
		f := s.Figures[0]
		t.Logf("gate %d: %s after %d rounds (%s), %+.2f %% [%+.2f, %+.2f], a round's spread %.2f %%, detectable %.2f %%, %s",
			i, s.Verdict, s.Rounds, s.Stopped, f.Change, f.Low, f.High, f.SD, s.Detectable, took.Round(time.Second))
		if took > gateBudget {
			t.Errorf("gate %d took %s, more than %s", i, took.Round(time.Second), gateBudget)
		}
		counts[s.Verdict]++
	}
	t.Logf("%d gates: %v", n, counts)
	return counts
}

// TestCompareGateFindsTwoPercent: a head adding about 2 % CPU a request is called regressed in at
// least 9 gates of 10.
func TestCompareGateFindsTwoPercent(t *testing.T) {
	repo, shas := workRepo(t, gateWork, gateMore)
	if c := runGates(t, repo, shas[0], shas[1], gates); c[gate.VerdictRegressed] < 9 {
		t.Errorf("regressed in %d gates of %d, want 9 at least: %v", c[gate.VerdictRegressed], gates, c)
	}
}

// TestCompareGateBaseAgainstItself: the base against itself is called regressed in at most 1 gate
// of 10 (the rest unchanged or inconclusive).
func TestCompareGateBaseAgainstItself(t *testing.T) {
	repo, shas := workRepo(t, gateWork)
	if c := runGates(t, repo, shas[0], shas[0], gates); c[gate.VerdictRegressed] > 1 {
		t.Errorf("regressed in %d gates of %d, want 1 at most: %v", c[gate.VerdictRegressed], gates, c)
	}
}
