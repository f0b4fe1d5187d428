package gate

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/measure"
)

// writeHistory writes n nightly results whose RPS drops by step from run `at` on; latency and CPU
// are noise only. File names run backwards in time, so only startTime can order them.
func writeHistory(t *testing.T, n, at int, step float64) string {
	t.Helper()
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(60, 40))
	start := time.Date(2026, 3, 1, 2, 0, 0, 0, time.UTC)
	for i := range n {
		level := 120000.0
		if i >= at {
			level *= 1 + step
		}
		r := newResult(rng, 0,
			rps(level*(1+0.005*rng.NormFloat64()), 0),
			metricSpec{measure.Latency99, 3.2 * (1 + 0.02*rng.NormFloat64()), 0},
			metricSpec{measure.CPU, 70 + rng.NormFloat64(), 0},
			metricSpec{measure.BuildTime, 1000 * rng.Float64(), 0})
		r.StartTime = start.Add(time.Duration(i) * 24 * time.Hour)
		writeResult(t, dir, fmt.Sprintf("nightly-%03d.json", n-i), r)
	}
	return dir
}

func runRegressions(args ...string) (int, string, string) {
	var out, errOut bytes.Buffer
	code := Regressions(context.Background(), args, &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestRegressionsFindsTheRPSStep(t *testing.T) {
	dir := writeHistory(t, 60, 40, -0.08)
	code, out, errOut := runRegressions("--history", dir, "--format", "json")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var found []Finding
	if err := json.Unmarshal([]byte(out), &found); err != nil {
		t.Fatalf("output is not a JSON list of findings: %v\n%s", err, out)
	}
	if len(found) != 1 {
		t.Fatalf("%d change points, want exactly one:\n%s", len(found), out)
	}
	f := found[0]
	if f.Service != "load" || f.Metric != measure.RPS || f.Index < 39 || f.Index > 41 || !f.Regression {
		t.Errorf("finding %+v, want a load http/rps/mean regression at run 40±1", f)
	}
	if f.Change > -0.07 || f.Change < -0.09 || f.File != fmt.Sprintf("nightly-%03d.json", 60-f.Index) {
		t.Errorf("change %.4f in %s, want about -8%% in nightly-%03d.json", f.Change, f.File, 60-f.Index)
	}
	want := time.Date(2026, 3, 1, 2, 0, 0, 0, time.UTC).Add(time.Duration(f.Index) * 24 * time.Hour)
	if !f.Time.Equal(want) {
		t.Errorf("time %v, want %v", f.Time, want)
	}
}

func TestRegressionsTextMarkdownAndFailFlag(t *testing.T) {
	dir := writeHistory(t, 60, 40, -0.08)
	code, out, _ := runRegressions("--history", dir)
	if code != ExitOK || !strings.Contains(out, "1 change point(s) in 3 series over 60 results") ||
		!strings.Contains(out, "http/rps/mean") || !strings.Contains(out, "regression") {
		t.Errorf("text: exit %d:\n%s", code, out)
	}
	code, out, _ = runRegressions("--format", "markdown", "--history", dir, "--fail-on-regression")
	if code != ExitRegressed || !strings.Contains(out, "### Performance change points") ||
		!strings.Contains(out, "| `http/rps/mean` |") || !strings.Contains(out, ":x: **regression**") {
		t.Errorf("markdown: exit %d, want 1:\n%s", code, out)
	}
	// A magnitude above the step hides it.
	code, out, _ = runRegressions("--history", dir, "--magnitude", "10%", "--format", "json")
	if code != ExitOK || strings.TrimSpace(out) != "[]" {
		t.Errorf("magnitude 10%%: exit %d, output %s", code, out)
	}
}

func TestRegressionsNoChangeAndChosenMetric(t *testing.T) {
	dir := writeHistory(t, 30, 30, 0)
	code, out, _ := runRegressions("--history", dir, "--metric", measure.BuildTime, "--metric", measure.CPU)
	if code != ExitOK || !strings.Contains(out, "No change points in 2 series over 30 results") {
		t.Errorf("exit %d:\n%s", code, out)
	}
	code, out, _ = runRegressions("--history", dir, "--scenario", "plaintext", "--since", "100000d")
	if code != ExitOK || !strings.Contains(out, "No change points in 3 series over 30 results") || strings.Contains(out, "Inconclusive") {
		t.Errorf("--scenario plaintext --since 100000d: exit %d:\n%s", code, out)
	}
	// Three runs cannot hold a change point (two segments of two at least): that is not "no
	// change", and the headline says so.
	code, out, _ = runRegressions("--history", writeHistory(t, 3, 3, 0))
	if code != ExitOK || !strings.Contains(out, "No change points in 3 series over 3 results") ||
		!strings.Contains(out, "Inconclusive: 3 series with fewer than 4 runs, too short to tell.") {
		t.Errorf("3 runs: exit %d:\n%s", code, out)
	}
}

func TestRegressionsBadInput(t *testing.T) {
	dir := writeHistory(t, 10, 10, 0)
	empty := t.TempDir()
	broken := t.TempDir()
	bad := filepath.Join(broken, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"jobResults": 3}`), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args []string
		want string
	}{
		{nil, "--history DIR is required"},
		{[]string{"--history", filepath.Join(empty, "nope")}, filepath.Join(empty, "nope")},
		{[]string{"--history", empty}, "no result files"},
		{[]string{"--history", broken}, bad},
		{[]string{"--history", dir, "--metric", "x/y"}, `unknown metric "x/y"`},
		{[]string{"--history", dir, "--format", "xml"}, `--format "xml"`},
		{[]string{"--history", dir, "--p-value", "0"}, "--p-value 0"},
		{[]string{"--history", dir, "--window", "2"}, "--window 2"},
		{[]string{"--history", dir, "extra"}, `unexpected argument "extra"`},
		{[]string{"--history", dir, "--scenario", "json"}, "history " + dir + `: no result of scenario "json"`},
		{[]string{"--history", dir, "--profile", "lab"}, `no result with profile "lab"`},
	}
	for _, c := range cases {
		code, _, errOut := runRegressions(c.args...)
		if code != ExitBadInput || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, errOut, c.want)
		}
	}
}
