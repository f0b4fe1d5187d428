//go:build measure

package e2e

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/diagnose"
	"github.com/crankshaft/crankshaft/internal/gate"
	"github.com/crankshaft/crankshaft/internal/measure"
	"github.com/crankshaft/crankshaft/internal/sweep"
	"github.com/crankshaft/crankshaft/internal/testutil"
)

func needSweep(t *testing.T) {
	if testing.Short() {
		t.Skip("load test")
	}
	if runtime.NumCPU() < 2 {
		t.Skip("a cpuSet sweep of 0 and 0-1 needs two CPUs")
	}
	if _, err := exec.LookPath("wrk"); err != nil {
		testutil.Missing(t, "wrk is not installed")
	}
}

// TestSweepPartitioning is the partitioning story on this 2-core machine: dispatch shared and
// partitioned (64 workers; partitioned with a queue per worker) on cpuSet 0 and 0-1 under 128-deep
// pipelines of the built-in generator pinned to CPU 1, 4 ABBA rounds. The sweep prints the four variants; at 0-1 the shared queue's lock
// contention is significantly higher than the partitioned queues'; and crank compare on the sweep
// file gives the sweep's verdicts for every pair of variants. When the contention is not yet
// significantly different, the same sweep is resumed two rounds at a time, up to 16: the
// contention varies by 30-45 % a round here, and at a ratio of 0.66 8 rounds were not enough once
// (p 0.161, gate run of 0fa6d99), nor 12 at -49 % (p 0.052, make measure of 90b0784). An
// inconclusive verdict in the right direction that says how many rounds would tell is a correct
// "cannot tell", and passes; regressed, unchanged or improved by less than 20 % fail.
func TestSweepPartitioning(t *testing.T) {
	needSweep(t)
	out := filepath.Join(t.TempDir(), "sweep.json")
	args := sweepArgs(t, out, "--matrix", "dispatch=shared,partitioned", "--matrix", "application.cpuSet=0,0-1",
		"--variable", "workers=64", "--variable", "partitions=64", "--variable", "pipeline=128",
		"--load.job", "builtin", "--load.cpuSet", "1")
	r := crank(t, 4*time.Minute, append(args, "--iterations", "4")...)
	if r.code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	shared, part := "dispatch=shared,cpuSet=0-1", "dispatch=partitioned,cpuSet=0-1"
	lock := sweep.Metric{Service: "application", Name: measure.LockContention}
	f, c := contention(t, out, shared, part, lock)
	for rounds := 6; rounds <= 16 && (c.Verdict != gate.VerdictImproved || c.PValue > gate.DefaultAlpha); rounds += 2 {
		t.Logf("%s: %+v; resuming to %d rounds", c.Verdict, c, rounds)
		if r = crank(t, 3*time.Minute, append(args, "--iterations", strconv.Itoa(rounds), "--resume")...); r.code != 0 {
			t.Fatalf("resume: exit %d\n%s", r.code, r.stderr)
		}
		f, c = contention(t, out, shared, part, lock)
	}
	t.Logf("sweep:\n%s", r.stdout)
	rps := regexp.MustCompile(`(?s)http/rps/mean \(load\).*?\n\n`).FindString(r.stdout)
	mustContain(t, "the RPS table", rps, "dispatch=shared,cpuSet=0 ", shared, "dispatch=partitioned,cpuSet=0 ", part)
	said := "improved \\*"
	switch {
	case c.Verdict == gate.VerdictInconclusive && c.Change <= -0.2 && c.Needed > 0:
		// Cannot tell, and says what would: the truth (less contention partitioned) is not
		// contradicted. On a quiet machine 12 rounds read -49 % at p 0.052 once (make measure of
		// 90b0784); the test then failed a correct "cannot tell".
		t.Logf("cannot tell after %d rounds a variant: %+.0f %%, p %.3f; %d would likely tell", c.Iterations[1], 100*c.Change, c.PValue, c.Needed)
		said = "inconclusive"
	case c.Verdict != gate.VerdictImproved || c.Change > -0.2 || c.PValue > gate.DefaultAlpha:
		t.Errorf("lock contention of %s against %s: %+v; want significantly lower, or inconclusive lower saying what would tell", part, shared, c)
	}
	row := fmt.Sprintf(`(?s)dispatch partitioned vs shared @ cpuSet=0-1 .*?runtime-counter/lock-contention \(application\)\s+\S+\s+%s\s+%.3f`, said, c.PValue)
	if !regexp.MustCompile(row).MatchString(r.stdout) {
		t.Errorf("the contrasts do not show partitioned's lock contention as %s (p %.3f)", said, c.PValue)
	}
	compareAgreesWithSweep(t, out, f)
}

// contention reads the sweep file and compares the lock contention of head against base.
func contention(t *testing.T, path, base, head string, m sweep.Metric) (*sweep.File, gate.Comparison) {
	t.Helper()
	f, err := sweep.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	index := map[string]int{}
	for i, v := range f.Variants {
		index[v.Name] = i
	}
	// All the sweep's metrics, as its contrasts table compares them: each is then tested at the
	// family's alpha (Bonferroni), and the verdict awaited is the one the table prints (with m
	// alone, p 0.007 read as improved while the table, at alpha 0.05 / 6, said inconclusive).
	return f, f.Compare(index[base], index[head], f.Metrics(), gate.CompareOptions{})[m]
}

// TestSweepInlineScalesWithCores: the inline default on cpuSet 0 and 0-1; two cores give more
// RPS than one. On this 2-core machine the load shares the machine, so it is the built-in
// generator (the cheapest client per request, one thread) pinned to CPU 1: on cpuSet 0 the app
// is alone on CPU 0 and the load leaves part of CPU 1 idle, which the app's second core can take
// on 0-1. The sweep says so before it runs. On a busy machine one bounded retry resumes the same
// sweep to 8 rounds. Two cores that gain nothing pass only when the sweep says it cannot tell
// (machine-busy, or a run on 0-1 whose verdict does not say the server limited it), never
// "flattens at".
func TestSweepInlineScalesWithCores(t *testing.T) {
	needSweep(t)
	out := filepath.Join(t.TempDir(), "sweep.json")
	args := sweepArgs(t, out, "--matrix", "application.cpuSet=0,0-1", "--variable", "pipeline=128",
		"--load.job", "builtin", "--load.cpuSet", "1")
	r := crank(t, 3*time.Minute, append(args, "--iterations", "4")...)
	if r.code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	mustContain(t, "stderr", r.stderr, "note: load runs on the same agent as application and may use the cores application.cpuSet sweeps (cpuSet=0-1)")
	f, one, two := scaling(t, out)
	if two.RPS <= one.RPS {
		t.Logf("after 4 rounds: %.0f RPS on 1 core, %.0f on 2; resuming to 8 rounds", one.RPS, two.RPS)
		if r = crank(t, 3*time.Minute, append(args, "--iterations", "8", "--resume")...); r.code != 0 {
			t.Fatalf("resume: exit %d\n%s", r.code, r.stderr)
		}
		f, one, two = scaling(t, out)
	}
	t.Logf("sweep:\n%s", r.stdout)
	env := f.Variants[0].Result.JobResults.Jobs["application"].Environment
	if env["cpuSet"] != "0" || env["cpuSetCores"] != 1.0 {
		t.Errorf("environment cpuSet %v cpuSetCores %v", env["cpuSet"], env["cpuSetCores"])
	}
	if load := f.Variants[0].Result.JobResults.Jobs["load"].Environment; load["cpuSet"] != "1" {
		t.Errorf("load environment cpuSet %v, want 1", load["cpuSet"])
	}
	mustContain(t, "stdout", r.stdout, "scaling over application.cpuSet", "RPS at 1, 2 cores")
	if one.Cores != 1 || two.Cores != 2 {
		t.Fatalf("core counts %d and %d, want 1 and 2", one.Cores, two.Cores)
	}
	if two.RPS > one.RPS {
		return
	}
	// With the two cores oversubscribed by other work, the app's second P mostly waits for a core
	// and costs more per request than it brings. Then the sweep must say so itself (a machine-busy
	// verdict): two cores not scaling is a pass only when the platform did not present it as the
	// app's own result.
	if busy := machineBusy(f); busy != "" {
		t.Logf("RPS %.0f on 1 core, %.0f on 2, and the sweep said the machine was too busy to compare cores: %s", one.RPS, two.RPS, busy)
		mustContain(t, "stdout", r.stdout, "cannot tell how RPS scales over the cores")
		if strings.Contains(r.stdout, "flattens at") {
			t.Errorf("a scaling claim from a busy machine:\n%s", r.stdout)
		}
		return
	}
	// The load too light for two cores, or the machine the load shares full (the built-in load
	// left part of CPU 1 idle and the app on 0-1 still took one core in all: make measure of
	// 2026-12-01), is not the server's limit: the sweep must say it cannot tell, not that RPS
	// flattens.
	if c := f.Curves(gate.CompareOptions{})[0]; c.NotServer != "" {
		t.Logf("RPS %.0f on 1 core, %.0f on 2, and the sweep said the verdict on 0-1 (%s) does not say the server limited it: %s",
			one.RPS, two.RPS, c.NotServerKind, diagnosisOf(f, 1))
		mustContain(t, "stdout", r.stdout, "cannot tell whether RPS stops scaling at 1 core")
		if strings.Contains(r.stdout, "flattens at") {
			t.Errorf("a scaling claim from a run whose verdict does not say the server limited it:\n%s", r.stdout)
		}
		return
	}
	t.Errorf("RPS %.0f on 1 core, %.0f on 2 (diagnosis on 0-1: %s): want more on two", one.RPS, two.RPS, diagnosisOf(f, 1))
}

// diagnosisOf is the first diagnosis of variant i ("kind: message"), "" when it has none.
func diagnosisOf(f *sweep.File, i int) string {
	for _, d := range f.Variants[i].Result.JobResults.Diagnostics {
		return d.Kind + ": " + d.Message
	}
	return ""
}

// machineBusy is the first machine-busy diagnosis of a variant, "" when none has one.
func machineBusy(f *sweep.File) string {
	for _, v := range f.Variants {
		for _, d := range v.Result.JobResults.Diagnostics {
			if d.Kind == diagnose.MachineBusy {
				return v.Name + ": " + d.Message
			}
		}
	}
	return ""
}

// scaling reads the sweep file's one scaling curve and its two points.
func scaling(t *testing.T, path string) (*sweep.File, sweep.Point, sweep.Point) {
	t.Helper()
	f, err := sweep.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	curves := f.Curves(gate.CompareOptions{})
	if len(curves) != 1 || len(curves[0].Points) != 2 {
		t.Fatalf("curves %+v", curves)
	}
	return f, curves[0].Points[0], curves[0].Points[1]
}
