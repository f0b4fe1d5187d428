//go:build measure

package e2e

import (
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/gate"
	"github.com/crankshaft/crankshaft/internal/results"
	"github.com/crankshaft/crankshaft/internal/testutil"
)

// The other method of issue 45's table (docs/GATES.md): today's crank compare of two files
// measured one after the other, as a PR bot runs base then head, on the same two heads as
// TestCompareGateFindsTwoPercent and TestCompareGateBaseAgainstItself. Each pair is the base's
// run (fileIterations iterations) then the head's, each a crank run of the commit checked out,
// then crank compare BASE.json HEAD.json on the app's CPU per request at --threshold 1%. These
// tests record each method's rate of right answers; they fail when a pair cannot run or its
// verdict cannot be read, not on the rates (the old method is the one expected to do worse).

// fileIterations is a side's iterations: 10 runs of 3 s (1 s warm-up), about the time the
// side-by-side gate spends on a side at its second look (17 rounds of 2 s).
const fileIterations = 10

// comparePairs runs n pairs of base then head and counts the verdicts of the application's
// benchmarks/cpu/per-request row.
func comparePairs(t *testing.T, repo, base, head string, n int) map[gate.Verdict]int {
	t.Helper()
	cfg := bisectConfig(t, repo, "builtin")
	port := strconv.Itoa(testutil.FreeRun(t, 1))
	side := func(sha, out string) {
		if b, err := exec.Command("git", "-C", repo, "checkout", "-q", sha).CombinedOutput(); err != nil {
			t.Fatalf("git checkout %s: %v\n%s", sha, err, b)
		}
		r := crank(t, 5*time.Minute, "--config", cfg, "--scenario", "app", "--variable", "serverPort="+port,
			"--variable", "duration=2", "--variable", "warmup=1", "--variable", "connections=8", "--load.variables.rate", "3000",
			"--interval", "0.25", "--application.cpuSet", "0", "--load.cpuSet", "1", "--iterations", strconv.Itoa(fileIterations),
			"--no-probe", "--json", out)
		if r.code != 0 {
			t.Fatalf("run of %s: exit %d\nstdout:\n%s\nstderr:\n%s", sha, r.code, r.stdout, r.stderr)
		}
	}
	counts := map[gate.Verdict]int{}
	for i := 1; i <= n; i++ {
		dir := t.TempDir()
		bf, hf := filepath.Join(dir, "base.json"), filepath.Join(dir, "head.json")
		start := time.Now()
		side(base, bf)
		side(head, hf)
		r := crank(t, time.Minute, "compare", bf, hf, "--metric", "benchmarks/cpu/per-request", "--threshold", "1%")
		if r.code != 0 && r.code != 1 && r.code != 3 {
			t.Fatalf("pair %d: crank compare exit %d\n%s\n%s", i, r.code, r.stdout, r.stderr)
		}
		c := appRow(t, bf, hf)
		t.Logf("pair %d: %s (exit %d), %+.2f %% [%+.2f, %+.2f], p %.3g, %s", i, c.Verdict, r.code, 100*c.Change,
			100*(c.CI.Low-1), 100*(c.CI.High-1), c.PValue, time.Since(start).Round(time.Second))
		counts[c.Verdict]++
	}
	t.Logf("%d pairs measured one after the other: %v", n, counts)
	return counts
}

// appRow is crank compare's judgement of the application's CPU per request in the two files.
func appRow(t *testing.T, bf, hf string) gate.Comparison {
	t.Helper()
	b, err := results.ReadFile(bf)
	if err != nil {
		t.Fatal(err)
	}
	h, err := results.ReadFile(hf)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := gate.CompareResults(b, h, gate.CompareOptions{Metrics: []string{"benchmarks/cpu/per-request"}, Threshold: 0.01}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range rep.Services {
		for _, row := range s.Rows {
			if s.Service == "application" && row.Metric == "benchmarks/cpu/per-request" && len(row.Compared) == 1 {
				return row.Compared[0]
			}
		}
	}
	t.Fatalf("no application benchmarks/cpu/per-request row in %s against %s: %+v", hf, bf, rep.Services)
	return gate.Comparison{}
}

// TestCompareFilesTwoPercent: a head as TestCompareGateFindsTwoPercent's (2 % more CPU a request,
// calibrated), judged from files.
func TestCompareFilesTwoPercent(t *testing.T) {
	repo, shas := workRepo(t, gateWork, twoPercentMore(t))
	c := comparePairs(t, repo, shas[0], shas[1], gates)
	t.Logf("files, head +2 %%: regressed in %d pairs of %d", c[gate.VerdictRegressed], gates)
}

// TestCompareFilesBaseAgainstItself: the base against itself, judged from files.
func TestCompareFilesBaseAgainstItself(t *testing.T) {
	repo, shas := workRepo(t, gateWork)
	c := comparePairs(t, repo, shas[0], shas[0], gates)
	t.Logf("files, base against itself: regressed in %d pairs of %d", c[gate.VerdictRegressed], gates)
}
