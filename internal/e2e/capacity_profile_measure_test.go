//go:build measure

package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/capacity"
)

// The capacity knee names what a profile says (issue 46): the knee's verdict is the diagnosis of
// the step there, which reads the step's profiles as any run's does.

// kneeSearch runs crank capacity of the diag server in mode with work per request under the
// built-in generator (its p99 under slo ms), with args added; a search that fails, or cannot tell
// on a machine the test did not see busy, fails the test. judged is false when the test saw the
// machine busy and the search said so (exit 3, or machine-busy at the knee): the answer is then
// reported, not judged.
func kneeSearch(t *testing.T, mode, work, slo string, args ...string) (r runResult, c capacity.Result, judged bool) {
	t.Helper()
	r, c, outside := capacitySearch(t, 3*time.Minute, diagArgs(t, mode, work, true, append([]string{"--load.job", "builtin",
		"--variable", "connections=16", "--slo", "load:http/latency/99<" + slo}, args...)...)...)
	if r.code != 0 && (r.code != 3 || outside <= busyOutside) {
		t.Fatalf("exit %d (%.0f %% of the machine outside the run)\nstdout:\n%s\nstderr:\n%s", r.code, 100*outside, r.stdout, r.stderr)
	}
	if r.code == 3 || c.VerdictKind == "machine-busy" && outside > busyOutside {
		t.Logf("the machine was busy (%.0f %% outside the run): reported, not judged\n%s", 100*outside, r.stdout)
		return r, c, false
	}
	return r, c, true
}

// TestCapacityKneeNamesTheLock: every request sleeps 1 ms holding one mutex (at most 1,000 req/s
// whatever the cores, the CPU idle); with Go's mutex profile the knee is contention-bound and names
// where the lock wait was, the handler's unlock line, as a single run's verdict does
// (TestVerdictNamesTheLock).
func TestCapacityKneeNamesTheLock(t *testing.T) {
	r, c, judged := kneeSearch(t, "mutex", "1ms", "20", "--application.goProfiles", "true")
	if !judged {
		return
	}
	if c.VerdictKind != "contention-bound" {
		t.Fatalf("knee verdict %q (%s), want contention-bound\n%s", c.VerdictKind, c.Verdict, r.stdout)
	}
	mustContain(t, "the knee's verdict", c.Verdict, "of the lock wait at main.handler.", "(main.go:")
	mustContain(t, "stdout", r.stdout, "at the knee: ", "of the lock wait at main.handler.")
}

// TestCapacityKneeNamesTheHotFunction: every request spins 200 µs of CPU; with perf (collect) the
// knee's verdict says which function took the most of the saturated job's CPU. The SLO is loose
// (p99 < 500 ms) so that the knee is where the server saturates: under p99 < 20 ms this server's
// knee was tail-latency at 59 % of the machine (4,875 req/s), where naming a function would
// explain nothing. On two cores the knee is machine-saturated or server-bound, by whether the
// generator took more than a tenth of the machine there (14 % in one run, under 10 % in another):
// either verdict names where the server's CPU went.
func TestCapacityKneeNamesTheHotFunction(t *testing.T) {
	r, c, judged := kneeSearch(t, "spin", "200us", "500", "--application.collect", "true")
	if !judged {
		return
	}
	// The spin's time is in time.Now, the vDSO's clock_gettime, which perf names only by its
	// binary once the process is gone: "[unknown] ([vdso])", never a bare "[unknown]".
	if !strings.Contains(c.Verdict, " of its CPU in ") || strings.Contains(c.Verdict, " of its CPU in [unknown])") {
		t.Fatalf("knee verdict %q (%s) names no function, or code of no known binary\n%s", c.VerdictKind, c.Verdict, r.stdout)
	}
}
