package e2e

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/duet"
	"github.com/crankshaft/crankshaft/internal/gate"
	"github.com/crankshaft/crankshaft/internal/testutil"
)

// workApp is bisectApp's server doing steps of arithmetic on every request: CPU work the app's
// CPU per request sees, whatever the host steals (docs/BISECT.md, why arithmetic, not a spin).
func workApp(steps int) string {
	return `package main

import (
	"flag"
	"fmt"
	"net"
	"net/http"
	"strconv"
)

func work(n int) uint64 {
	x := uint64(88172645463325252)
	for i := 0; i < n; i++ {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
	}
	return x
}

` + appMain(`
		w.Header().Set("X-Work", strconv.FormatUint(work(`+strconv.Itoa(steps)+`)&1, 10))`)
}

// workRepo makes a repository of one commit of workApp per steps (oldest first) and returns its
// folder and commits.
func workRepo(t *testing.T, steps ...int) (string, []string) {
	var commits []appCommit
	for _, n := range steps {
		commits = append(commits, appCommit{main: workApp(n), subject: strconv.Itoa(n) + " steps of arithmetic on every request"})
	}
	return appRepo(t, commits)
}

// compareRefsArgs are crank compare --base --head's arguments for the app in repo (no refs):
// the built-in generator at a fixed 2,000 req/s, runs of 1 s, the apps on CPU 0 and the loads on
// CPU 1, as TestBisectSideBySideFindsTheMutex runs them.
func compareRefsArgs(t *testing.T, repo string) []string {
	return []string{"compare", "--config", bisectConfig(t, repo, "builtin"), "--scenario", "app",
		"--variable", "serverPort=" + strconv.Itoa(testutil.FreeRun(t, 2)), "--variable", "duration=1", "--variable", "warmup=0",
		"--variable", "connections=8", "--load.variables.rate", "2000", "--interval", "0.25",
		"--application.cpuSet", "0", "--load.cpuSet", "1"}
}

// compareDoc is the part of crank compare --base --head's JSON the tests read.
type compareDoc struct {
	Compare duet.Summary `json:"compare"`
}

// TestCompareRefsRefusesBadInput: an unknown ref, a dirty work tree, an unknown metric and a plan
// with too few rounds are refused before anything starts (exit 2), each naming its flag or ref.
func TestCompareRefsRefusesBadInput(t *testing.T) {
	repo, shas := workRepo(t, 0)
	args := compareRefsArgs(t, repo)
	for _, c := range []struct {
		name  string
		extra []string
		want  string
	}{
		{"unknown ref", []string{"--base", shas[0], "--head", "no-such-ref"}, "--head no-such-ref"},
		{"unknown metric", []string{"--base", shas[0], "--head", shas[0], "--metric", "application:no/such/figure"}, "no/such/figure"},
		{"too few rounds", []string{"--base", shas[0], "--head", shas[0], "--max-rounds", "3"}, "--max-rounds 3"},
		{"bad threshold", []string{"--base", shas[0], "--head", shas[0], "--threshold", "five"}, "--threshold"},
	} {
		// --verbose: the runs' step lines ("starting job") show only then.
		r := crank(t, time.Minute, append(append(args, c.extra...), "--verbose")...)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) || strings.Contains(r.stderr, "starting job") {
			t.Errorf("%s: exit %d, want 2 naming %q before any job starts\n%s", c.name, r.code, c.want, r.stderr)
		}
	}
	writeFile(t, repo, "main.go", workApp(5))
	r := crank(t, time.Minute, append(args, "--base", shas[0], "--head", "HEAD")...)
	if r.code != 2 || !strings.Contains(r.stderr, "uncommitted changes") || !strings.Contains(r.stderr, repo) {
		t.Errorf("dirty work tree: exit %d, want 2 naming the tree\n%s", r.code, r.stderr)
	}
	// Without --base and --head, crank compare compares files, as before.
	if r := crank(t, time.Minute, "compare", "missing-base.json", "missing-head.json"); r.code != 2 || !strings.Contains(r.stderr, "missing-base.json") {
		t.Errorf("crank compare of files: exit %d, want 2 naming the missing file\n%s", r.code, r.stderr)
	}
}

// TestCompareRefsFindsMoreWork: head does far more arithmetic on every request; side by side,
// the gate calls it regressed (exit 1), says how the sides ran, and prints the bisect command.
// What the arithmetic adds depends on the host: 12,000 steps were about twice the app's CPU a
// request here (25 µs a request, 1.4 ns a step) and +14.8 % on CI's runner (161 µs a request,
// about 2 ns a step), under the +15 % this test once asked for. So the head does 48,000 steps
// (about +60 % there), and the test asks only what is true on every host: a change past the
// threshold, its interval above zero.
func TestCompareRefsFindsMoreWork(t *testing.T) {
	repo, shas := workRepo(t, 0, 48000)
	out := filepath.Join(t.TempDir(), "compare.json")
	r := crank(t, 5*time.Minute, append(compareRefsArgs(t, repo), "--base", shas[0], "--head", shas[1],
		"--max-rounds", "17", "--limit", "4m", "--json", out)...)
	t.Logf("\n%s", r.stdout)
	if r.code != 1 {
		t.Fatalf("exit %d, want 1 (regressed)\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	s := readJSON[compareDoc](t, out).Compare
	f := s.Figures[0]
	if s.Verdict != gate.VerdictRegressed || s.How != duet.SideBySide || s.Rounds < 6 || s.Rounds > 17 || f.Metric != "benchmarks/cpu/per-request" ||
		f.Service != "application" || f.Change < s.Threshold || f.Low <= 0 || len(f.BaseRounds) != s.Rounds || s.Base.SHA != shas[0] || s.Head.SHA != shas[1] {
		t.Errorf("JSON compare: %+v", s)
	}
	// The change found 95 % of the time can exceed one found once: at 6 rounds a change about 3.5
	// standard errors out is significant (p 0.004), while 95 % power wants about 7 (seen beside
	// the host's steal: 40.2 % found, 43.2 % detectable). So only its presence and scale are checked.
	if !(s.Detectable > 0) || s.Detectable > 4*f.Change {
		t.Errorf("detectable %.2f %%: want above 0 and within 4x the change found (%.2f %%)", s.Detectable, f.Change)
	}
	if !strings.Contains(r.stdout, "how: side by side") || !strings.Contains(r.stdout, "verdict: regressed") ||
		!strings.Contains(r.stdout, "crank bisect --good "+shas[0]+" --bad "+shas[1]+" --side-by-side") {
		t.Errorf("the text does not say how, the verdict and the bisect command:\n%s", r.stdout)
	}
	if !strings.Contains(r.stderr, "[application#2]") {
		t.Errorf("stderr does not show two copies at once:\n%s", r.stderr)
	}
}

// TestCompareRefsBaseAgainstItself: the same commit on both sides is never called regressed or
// improved: it is unchanged (exit 0) or, on a busy machine, inconclusive (exit 3); the JSON says
// the same. At the default --alpha 0.05 a gate of a commit against itself may be called changed
// up to 5 % of the time by design, and once was beside the gate's other tests (-6.8 %, p 0.005 at
// the third look, a round's spread 7.2 %), while 30 such gates here beside a busy core were all
// unchanged: this test asks --alpha 0.001, so that it fails by chance about once in a thousand runs
// (the rate at the default is measured by TestCompareGateBaseAgainstItself and internal/duet's
// simulations).
func TestCompareRefsBaseAgainstItself(t *testing.T) {
	repo, shas := workRepo(t, 3000)
	out := filepath.Join(t.TempDir(), "compare.json")
	r := crank(t, 5*time.Minute, append(compareRefsArgs(t, repo), "--base", shas[0], "--head", shas[0],
		"--alpha", "0.001", "--max-rounds", "17", "--limit", "3m", "--json", out)...)
	t.Logf("\n%s", r.stdout)
	if r.code != 0 && r.code != 3 {
		t.Fatalf("exit %d, want 0 or 3\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	s := readJSON[compareDoc](t, out).Compare
	want := map[int]gate.Verdict{0: gate.VerdictUnchanged, 3: gate.VerdictInconclusive}[r.code]
	if s.Verdict != want || s.How != duet.SideBySide || s.Rounds < 6 || s.Alpha != 0.001 {
		t.Errorf("JSON compare: verdict %s, how %s, %d rounds, alpha %v: want %s, side by side, 6 or more, 0.001", s.Verdict, s.How, s.Rounds, s.Alpha, want)
	}
	if s.Verdict == gate.VerdictInconclusive && (s.RoundsToTell == 0 || !strings.Contains(r.stdout, "rounds would tell")) {
		t.Errorf("inconclusive without saying how many rounds would tell:\n%s", r.stdout)
	}
}

// TestCompareRefsInterleavedWhenSideBySideCannot: requests/s as fast as the load can is a share of
// the machine when the sides run at once (bisect's side-by-side check refuses it), so the gate
// runs the sides one after the other in each round, says why, and still finds the head that
// does far more work a request: its requests/s lower, regressed (exit 1). The head does 48,000
// steps a request, as in TestCompareRefsInterleavedWhenAsked: with 12,000 (-30 % req/s), in the
// first gate after set-up (the gate's own builds beside it, load average 4.4, both sides
// machine-busy), a round's spread reached 46 % and 13 rounds were inconclusive (gate h1 on dbc2b26).
func TestCompareRefsInterleavedWhenSideBySideCannot(t *testing.T) {
	repo, shas := workRepo(t, 0, 48000)
	out := filepath.Join(t.TempDir(), "compare.json")
	r := crank(t, 5*time.Minute, append(compareRefsArgs(t, repo), "--load.variables.rate", "0", "--metric", "load:http/rps/mean",
		"--base", shas[0], "--head", shas[1], "--max-rounds", "13", "--limit", "4m", "--json", out)...)
	t.Logf("\n%s", r.stdout)
	if r.code != 1 {
		t.Fatalf("exit %d, want 1 (regressed)\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	s := readJSON[compareDoc](t, out).Compare
	if s.How != duet.Interleaved || !strings.Contains(s.Why, "share the machine") || s.Verdict != gate.VerdictRegressed || s.Figures[0].Change > -15 {
		t.Errorf("JSON compare: how %s (%s), verdict %s, change %.1f %%: want interleaved because they share the machine, regressed, below -15 %%",
			s.How, s.Why, s.Verdict, s.Figures[0].Change)
	}
	if !strings.Contains(r.stdout, "how: interleaved") || strings.Contains(r.stdout, "--side-by-side") || strings.Contains(r.stderr, "[application#2]") {
		t.Errorf("the sides should run one after the other, and the bisect command without --side-by-side:\n%s", r.stdout)
	}
}

// TestCompareRefsInterleavedWhenAsked: --interleaved runs the sides one after the other in each
// round where side by side would work, and says it was asked; the heavier head is still found.
// The head does 48,000 steps a request (about twice the app's CPU a request): one after the
// other, beside the gate's other tests, a round's spread reached 31 % and 12,000 steps (+27 %
// measured) was inconclusive at 10 rounds (gate run h1 on fff836d).
func TestCompareRefsInterleavedWhenAsked(t *testing.T) {
	repo, shas := workRepo(t, 0, 48000)
	out := filepath.Join(t.TempDir(), "compare.json")
	r := crank(t, 5*time.Minute, append(compareRefsArgs(t, repo), "--interleaved", "--base", shas[0], "--head", shas[1],
		"--max-rounds", "10", "--limit", "3m", "--json", out)...)
	t.Logf("\n%s", r.stdout)
	s := readJSON[compareDoc](t, out).Compare
	if r.code != 1 || s.How != duet.Interleaved || s.Why != "asked (--interleaved)" || s.Verdict != gate.VerdictRegressed {
		t.Errorf("exit %d, how %s (%s), verdict %s: want 1, interleaved (asked), regressed\n%s", r.code, s.How, s.Why, s.Verdict, r.stderr)
	}
	if strings.Contains(r.stderr, "[application#2]") || strings.Contains(r.stderr, "side by side:") {
		t.Errorf("--interleaved ran the sides side by side:\n%s", r.stderr)
	}
}
