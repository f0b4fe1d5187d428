//go:build measure

package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/capacity"
)

// The capacity searches whose answer is a measured rate (make measure); TestCapacityRefusals,
// in capacity_test.go, is in the gate.

// TestCapacityOfAMutex: every request holds one mutex for 1 ms (burning it, so the hold is exact):
// the server can never serve more than 1,000 req/s whatever the cores, and serves a few % less
// (the lock's hand-off between goroutines). crank capacity with p99 < 20 ms finds 85-100 % of what
// the server served when saturated (its ceiling: the most any step achieved, the step asked
// 1,000 req/s), says contention-bound (or serialized) at the knee, within 60 s, and writes its
// steps at the root of the JSON.
//
// Why 85 %: requests queue for one 1 ms server, so p99 < 20 ms is 20 service times. Arriving at
// random (64 connections), the queue's p99 wait is about its mean wait ρ/(2µ(1-ρ)) times ln(100ρ):
// 12.6 ms at 85 % of the ceiling, 20 ms at 90 %, 26 ms at 92 %. The knee lies near 90 %, and the
// search's last bracket is 3 % wide. A fixed band of 900-1,050 req/s failed a quiet CI run: its
// ceiling was 959-975 req/s and it found 875 (90 % of it); this machine found 938 of 966.
func TestCapacityOfAMutex(t *testing.T) {
	// Near the knee a p99 is amplified by any pause: at 85 % of the true capacity, bursts of other
	// work taking 16 % of the machine (two processes burning 50 ms every 350 ms) settled the search
	// at 812 req/s, where a quiet machine gives 969. The band is a measurement of a quiet machine:
	// a search the test saw disturbed (quietOutside, its own measure) runs again, up to three times,
	// and is judged only when one was quiet; else it is reported, not judged. A search that says it
	// cannot tell (exit 3) is accepted only on a machine the test saw disturbed.
	var (
		c       capacity.Result
		r       runResult
		out     string
		outside float64
	)
	for try := 1; try <= 3; try++ {
		out = filepath.Join(t.TempDir(), "capacity.json")
		args := append([]string{"capacity"}, diagArgs(t, "mutexspin", "1ms", true, "--load.job", "builtin", "--variable", "connections=64",
			"--slo", "load:http/latency/99<20", "--json", out)...)
		start := time.Now()
		outside = outsideShare(t, func() { r = crank(t, 2*time.Minute, args...) })
		took := time.Since(start)
		// A search the machine disturbed may say it cannot tell (exit 3): then it is measured again.
		if r.code != 0 && (r.code != 3 || outside <= quietOutside) {
			t.Fatalf("exit %d (%.0f %% of the machine outside the run)\nstdout:\n%s\nstderr:\n%s", r.code, 100*outside, r.stdout, r.stderr)
		}
		c = readJSON[struct {
			Capacity capacity.Result `json:"capacity"`
		}](t, out).Capacity
		if r.code == 3 {
			t.Logf("try %d: cannot tell on a disturbed machine (%.0f %% outside the run): %s", try, 100*outside, c.Inconclusive)
			continue
		}
		t.Logf("try %d: capacity %.0f req/s, failed at %.0f, %d steps in %s, %.0f %% of the machine used outside the run: %s",
			try, c.Rate, c.FailedAt, len(c.Steps), took.Round(time.Second), 100*outside, c.Verdict)
		if took > time.Minute {
			t.Errorf("took %s, want under 60 s", took)
		}
		if outside <= quietOutside {
			break
		}
	}
	if r.code == 3 {
		t.Logf("every try ran on a disturbed machine and said it cannot tell (exit 3): reported, not judged\n%s", r.stdout)
		return
	}
	ceiling := 0.0
	for _, s := range c.Steps {
		ceiling = max(ceiling, s.Achieved)
	}
	t.Logf("saturated, the server served at most %.0f req/s; the capacity is %.0f %% of it", ceiling, 100*c.Rate/ceiling)
	if ceiling < 900 || ceiling > 1010 {
		t.Errorf("the server served at most %.0f req/s, want 900-1,000 (one 1 ms lock, a few %% for its hand-off)\n%s", ceiling, r.stdout)
	}
	if c.Rate > 1.02*ceiling || c.Rate > 1000 {
		t.Errorf("capacity %.0f req/s, above what the server served (%.0f) or the lock's 1,000\n%s", c.Rate, ceiling, r.stdout)
	}
	if outside <= quietOutside {
		if c.Rate < 0.85*ceiling {
			t.Errorf("capacity %.0f req/s on a quiet machine (%.0f %% outside the run), %.0f %% of the %.0f req/s the server served saturated, want 85-100 %%\n%s",
				c.Rate, 100*outside, 100*c.Rate/ceiling, ceiling, r.stdout)
		}
	} else {
		t.Logf("%.0f %% of the machine used outside the run in each try: capacity %.0f req/s (%.0f %% of the %.0f served saturated) reported, not judged against 85-100 %%",
			100*outside, c.Rate, 100*c.Rate/ceiling, ceiling)
	}
	// On a machine the test measured busy, machine-busy replaces the CPU-based verdicts, as it does
	// for any run (the verdict tests accept it alike).
	if c.VerdictKind != "contention-bound" && c.VerdictKind != "serialized" && (c.VerdictKind != "machine-busy" || outside <= busyOutside) {
		t.Errorf("knee verdict %q (%s), want contention-bound or serialized (machine-busy only on a busy machine: %.0f %% outside)", c.VerdictKind, c.Verdict, 100*outside)
	}
	if !strings.Contains(r.stdout, "capacity: ") || !strings.Contains(r.stdout, "at the knee: server CPU") || len(c.Steps) < 3 {
		t.Errorf("stdout lacks the answer or the steps:\n%s", r.stdout)
	}
	// crank report shows the search: the answer, and each step with the terminal table's cells.
	page := filepath.Join(t.TempDir(), "capacity.html")
	if rr := crank(t, time.Minute, "report", out, "-o", page); rr.code != 0 || !strings.Contains(rr.stdout, "1 capacity search(es), ") {
		t.Fatalf("crank report: exit %d\n%s\n%s", rr.code, rr.stdout, rr.stderr)
	}
	html, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	cols := capacity.Columns()
	for i, s := range c.Steps {
		row := fmt.Sprintf(`data-step="%d"><td class="v">%d</td><td class="v">%s</td><td class="v">%s</td>`, i+1, i+1, cols[0].Cell(s), cols[1].Cell(s))
		if !strings.Contains(string(html), row) || !strings.Contains(r.stdout, cols[4].Cell(s)) {
			t.Errorf("step %d: the report lacks %q (or the terminal its p99 %s)", i+1, row, cols[4].Cell(s))
		}
	}
	if !strings.Contains(string(html), capacity.Rate(c.Rate)) || !strings.Contains(string(html), c.VerdictKind) {
		t.Errorf("the report lacks the capacity %s or the knee's %s", capacity.Rate(c.Rate), c.VerdictKind)
	}
}

// TestCapacityPerVariant: crank capacity --matrix answers "which variant sustains more at the SLO":
// the mutex server holding its lock 2 ms, then 4 ms, per request (true capacities 500 and 250
// req/s) comes out near half, each knee contention-bound, each search in the JSON.
func TestCapacityPerVariant(t *testing.T) {
	out := filepath.Join(t.TempDir(), "capacity.json")
	args := append([]string{"capacity"}, diagArgs(t, "mutexspin", "2ms", true, "--load.job", "builtin", "--variable", "connections=64",
		"--slo", "load:http/latency/99<60", "--matrix", "work=2ms,4ms", "--start-rate", "200", "--precision", "15",
		"--step-duration", "2", "--json", out)...)
	var r runResult
	outside := outsideShare(t, func() { r = crank(t, 4*time.Minute, args...) })
	if r.code == 3 && outside > quietOutside {
		t.Logf("a variant cannot tell on a disturbed machine (%.0f %% outside the run): reported, not judged\n%s", 100*outside, r.stdout)
		return
	}
	if r.code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	doc := readJSON[struct {
		Capacity struct {
			Variants []struct {
				Variant string `json:"variant"`
				capacity.Result
			} `json:"variants"`
		} `json:"capacity"`
	}](t, out)
	vs := doc.Capacity.Variants
	if len(vs) != 2 || vs[0].Variant != "work=2ms" || vs[1].Variant != "work=4ms" {
		t.Fatalf("variants %+v, want work=2ms then work=4ms", vs)
	}
	t.Logf("capacities %.0f and %.0f req/s (%.2fx), knees %s and %s, %.0f %% of the machine outside", vs[0].Rate, vs[1].Rate,
		vs[1].Rate/max(vs[0].Rate, 1), vs[0].VerdictKind, vs[1].VerdictKind, 100*outside)
	if ratio := vs[1].Rate / max(vs[0].Rate, 1); ratio < 0.35 || ratio > 0.65 {
		t.Errorf("4 ms against 2 ms: %.2fx, want about 0.5x\n%s", ratio, r.stdout)
	}
	for _, v := range vs {
		if v.VerdictKind != "contention-bound" && v.VerdictKind != "serialized" && (v.VerdictKind != "machine-busy" || outside <= busyOutside) {
			t.Errorf("%s: knee %q (%s), want contention-bound or serialized", v.Variant, v.VerdictKind, v.Verdict)
		}
	}
	if !strings.Contains(r.stdout, "capacity per variant (the first is the baseline):") || !strings.Contains(r.stdout, "work=4ms") {
		t.Errorf("stdout lacks the side-by-side table:\n%s", r.stdout)
	}
}

// TestCapacitySerializedBesideABusyCore is issue 44's acceptance: a server that serves one request
// at a time, each sleeping 400 µs (about 2,100 req/s at most here, at a few % of CPU), searched on
// a quiet machine, then beside one process keeping a core busy (sha256sum /dev/zero). Beside the
// busy core the search either lands within 15 % of the quiet answer (exit 0) or exits 3 saying it
// cannot tell and what would tell; never exit 0 below 0.85x (on a busy machine it once answered
// 359 req/s for a server of 2,000, exit 0).
func TestCapacitySerializedBesideABusyCore(t *testing.T) {
	search := func(what string) (runResult, capacity.Result, float64) {
		t.Logf("%s:", what)
		return capacitySearch(t, 4*time.Minute, diagArgs(t, "serial", "400us", false, "--load.job", "builtin",
			"--variable", "connections=64", "--slo", "load:http/latency/99<20", "--start-rate", "1000")...)
	}
	r, quiet, outside := search("quiet")
	if r.code != 0 || outside > quietOutside {
		if outside > quietOutside {
			t.Skipf("the machine was not quiet (%.0f %% outside the run, exit %d): no quiet answer to judge against", 100*outside, r.code)
		}
		t.Fatalf("quiet search: exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	busyCore(t, 5*time.Minute)
	r, busy, outside := search("beside a busy core")
	if outside < 0.3 {
		t.Errorf("sha256sum took %.0f %% of the machine, want about half (one core of two)", 100*outside)
	}
	switch r.code {
	case 0:
		if ratio := busy.Rate / quiet.Rate; ratio < 0.85 || ratio > 1.15 {
			t.Errorf("beside a busy core: exit 0 with %.0f req/s, %.2fx the quiet %.0f: want within 15 %% or a search that cannot tell\n%s",
				busy.Rate, ratio, quiet.Rate, r.stdout)
		}
	case 3:
		mustContain(t, "stderr", r.stderr, "crank capacity: cannot tell the capacity: ", "what would tell: ")
		mustContain(t, "stdout", r.stdout, "capacity: cannot tell: ", " as measured")
	default:
		t.Errorf("beside a busy core: exit %d, want 0 within 15 %% of the quiet answer or 3\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
}

// busyCore keeps one core busy for the rest of the test (at most limit): one sha256sum /dev/zero.
func busyCore(t *testing.T, limit time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	cmd := exec.CommandContext(ctx, "sha256sum", "/dev/zero")
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatalf("sha256sum /dev/zero: %v", err)
	}
	t.Cleanup(func() { cancel(); _ = cmd.Wait() })
}

// capacitySearch runs crank capacity with args (its JSON written to a temporary file) within
// limit, and returns how it ended, its answer when it gave one (exit 0 or 3), and the share of the
// machine used outside it (outsideShare).
func capacitySearch(t *testing.T, limit time.Duration, args ...string) (runResult, capacity.Result, float64) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "capacity.json")
	var r runResult
	outside := outsideShare(t, func() { r = crank(t, limit, append(append([]string{"capacity"}, args...), "--json", out)...) })
	var c capacity.Result
	if r.code == 0 || r.code == 3 {
		c = readJSON[struct {
			Capacity capacity.Result `json:"capacity"`
		}](t, out).Capacity
	}
	t.Logf("exit %d, capacity %.0f req/s (bracket %.0f-%.0f), %d steps, %.0f %% of the machine outside the run; at the knee: %s (%s); cannot tell: %q",
		r.code, c.Rate, c.Rate, c.FailedAt, len(c.Steps), 100*outside, c.VerdictKind, c.Verdict, c.Inconclusive)
	return r, c, outside
}
