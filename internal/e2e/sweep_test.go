package e2e

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/gate"
	"github.com/crankshaft/crankshaft/internal/influx"
	"github.com/crankshaft/crankshaft/internal/influxtest"
	"github.com/crankshaft/crankshaft/internal/measure"
	"github.com/crankshaft/crankshaft/internal/sweep"
)

// sweepArgs is a short plaintext sweep on the embedded agent on free ports.
func sweepArgs(t *testing.T, out string, extra ...string) []string {
	_, ports := appPorts(t)
	args := []string{"sweep", "--config", "scenarios/plaintext.yml", "--scenario", "plaintext",
		"--variable", "duration=2", "--variable", "warmup=1", "--json", out}
	return append(append(args, ports...), extra...)
}

// TestSweepInterruptAndResume: Ctrl-C during the second run keeps the first in the sweep file,
// leaves no job process, and --resume finishes the sweep from there.
func TestSweepInterruptAndResume(t *testing.T) {
	dir := t.TempDir()
	cfg, out := shellJobs(t, dir, ""), filepath.Join(dir, "sweep.json")
	args := []string{"sweep", "--config", cfg, "--scenario", "shell", "--matrix", "note=a,b", "--iterations", "2", "--json", out}
	cmd := exec.Command(filepath.Join(testEnv.bins, "crank"), args...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	sc := bufio.NewScanner(stderr)
	var seen strings.Builder
	for sc.Scan() {
		seen.WriteString(sc.Text() + "\n")
		if strings.HasPrefix(sc.Text(), "[load] starting") && strings.Contains(seen.String(), "sweep run 2 of 4") {
			break
		}
	}
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	rest, _ := io.ReadAll(stderr)
	seen.Write(rest)
	if err := cmd.Wait(); cmd.ProcessState.ExitCode() != 1 {
		t.Fatalf("interrupted sweep: %v, want exit 1\n%s", err, seen.String())
	}
	mustContain(t, "stderr", seen.String(), "interrupted after 1 of 4 runs", "--resume")
	waitGone(t, 10*time.Second, "sleep 120")
	f, err := sweep.ReadFile(out)
	if err != nil || f.Done != 1 || f.Runs(0) != 1 {
		t.Fatalf("after Ctrl-C: %v, %+v", err, f)
	}
	r := crank(t, time.Minute, append(args[:len(args)-6], "--iterations", "2", "--json", out, "--resume")...)
	if f, err = sweep.ReadFile(out); r.code != 0 || err != nil || f.Done != 4 || f.Runs(0) != 2 || f.Runs(1) != 2 {
		t.Fatalf("resumed: exit %d, %v, %+v\n%s", r.code, err, f, r.stderr)
	}
	mustContain(t, "stderr", r.stderr, "sweep run 2 of 4: note=b (round 1)", "sweep run 4 of 4")
}

// TestSweepInfluxVariantTag: every run of a sweep is pushed with its variant as the tag variant.
func TestSweepInfluxVariantTag(t *testing.T) {
	db := influxtest.Start(t)
	dir := t.TempDir()
	r := crankEnv(t, time.Minute, []string{"CRANK_SPOOL_DIR=" + t.TempDir()}, "sweep", "--config", shellJobs(t, dir, ""),
		"--scenario", "shell", "--matrix", "note=a,b", "--iterations", "2", "--json", filepath.Join(dir, "sweep.json"),
		"--influx-url", db.URL, "--influx-bucket", db.DB+"/autogen")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	s, err := influx.Query(t.Context(), db.URL, "", db.DB, `SELECT count("text") FROM "crank_run" GROUP BY "variant"`)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, row := range s {
		got[row.Tags["variant"]] = fmt.Sprint(row.Values[0][1])
	}
	if want := map[string]string{"note=a": "2", "note=b": "2"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("crank_run points by variant %v, want %v", got, want)
	}
}

// TestSweepCompareAgreesWithSweep: crank compare on two variants of a sweep file (file#name and
// file#n) gives, for requests/s, CPU and lock contention, the verdict the sweep's own comparison
// gives. Which verdict that is depends on what was measured; that the two agree does not: they
// read the same samples. A short plaintext sweep of the two dispatch modes, 3 rounds (with 2 crank
// compare has no interval and both would say inconclusive, whatever was measured).
// (TestSweepPartitioning, make measure, checks the same agreement on its measured sweep.)
func TestSweepCompareAgreesWithSweep(t *testing.T) {
	if testing.Short() {
		t.Skip("load test")
	}
	out := filepath.Join(t.TempDir(), "sweep.json")
	r := crank(t, 3*time.Minute, sweepArgs(t, out, "--matrix", "dispatch=shared,partitioned", "--load.job", "builtin",
		"--variable", "workers=8", "--variable", "partitions=8", "--iterations", "3")...)
	if r.code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	f, err := sweep.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Variants) != 2 {
		t.Fatalf("%d variants, want 2 (dispatch shared and partitioned)", len(f.Variants))
	}
	compareAgreesWithSweep(t, out, f)
}

// compareAgreesWithSweep fails unless crank compare, for every pair of the sweep file's variants,
// gives each of requests/s, CPU and lock contention the verdict the sweep's Compare gives.
func compareAgreesWithSweep(t *testing.T, out string, f *sweep.File) {
	t.Helper()
	metrics := []string{measure.RPS, measure.CPU, measure.LockContention}
	for i := range f.Variants {
		for j := i + 1; j < len(f.Variants); j++ {
			var ms []sweep.Metric
			for _, m := range f.Metrics() {
				if slices.Contains(metrics, m.Name) {
					ms = append(ms, m)
				}
			}
			for _, name := range metrics {
				if !slices.ContainsFunc(ms, func(m sweep.Metric) bool { return m.Name == name }) {
					t.Fatalf("the sweep file has no %s to compare: %v", name, f.Metrics())
				}
			}
			want := f.Compare(i, j, ms, gate.CompareOptions{})
			got := compareVerdicts(t, fmt.Sprintf("%s#%s", out, f.Variants[i].Name), fmt.Sprintf("%s#%d", out, j+1), metrics)
			for _, m := range ms {
				if got[m] != string(want[m].Verdict) {
					t.Errorf("%s vs %s, %s: crank compare says %q, the sweep %q", f.Variants[j].Name, f.Variants[i].Name, m, got[m], want[m].Verdict)
				}
			}
		}
	}
}

// compareVerdicts runs crank compare on two results and reads each metric's verdict.
func compareVerdicts(t *testing.T, base, head string, metrics []string) map[sweep.Metric]string {
	t.Helper()
	args := []string{"compare", base, head}
	for _, m := range metrics {
		args = append(args, "--metric", m)
	}
	r := crank(t, time.Minute, args...)
	if r.code == gate.ExitBadInput {
		t.Fatalf("crank %v: exit %d\n%s", args, r.code, r.stderr)
	}
	got := map[sweep.Metric]string{}
	cols := regexp.MustCompile(`\s{2,}`)
	service, verdict := "", -1
	for _, line := range strings.Split(r.stdout, "\n") {
		if s, ok := strings.CutPrefix(line, "["); ok && strings.HasSuffix(s, "]") {
			service = strings.TrimSuffix(s, "]")
			continue
		}
		f := cols.Split(strings.TrimSpace(line), -1)
		if len(f) > 0 && f[0] == "metric" { // the header names the verdict's column
			verdict = slices.Index(f, "verdict")
			continue
		}
		if verdict > 0 && len(f) > verdict && slices.Contains(metrics, f[0]) {
			got[sweep.Metric{Service: service, Name: f[0]}] = f[verdict]
		}
	}
	if verdict < 0 {
		t.Fatalf("crank %v: no header with a verdict column:\n%s", args, r.stdout)
	}
	return got
}
