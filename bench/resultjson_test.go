package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/gate"
	"github.com/crankshaft/crankshaft/internal/measure"
	"github.com/crankshaft/crankshaft/internal/results"
)

var update = flag.Bool("update", false, "rewrite testdata/results.json")

// golden is the result of testReport, which internal/gate's TestBenchResultRead reads as compare does.
const golden = "testdata/results.json"

// TestResultGolden: the result written for testReport is testdata/results.json, byte for byte
// (`go test ./bench -run Golden -update` rewrites it).
func TestResultGolden(t *testing.T) {
	res, err := benchResult(testReport())
	if err != nil {
		t.Fatal(err)
	}
	got, err := results.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("the result differs from %s (go test ./bench -run Golden -update):\n%s", golden, got)
	}
}

// TestResultRoundTrip: the result read back has a job per row with the runs as iterations and
// their medians as results, and says why a skipped row has no figure.
func TestResultRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bench.json")
	if err := writeResult(path, testReport(), slog.New(slog.NewTextHandler(io.Discard, nil))); err != nil {
		t.Fatal(err)
	}
	r, err := results.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if want := "make bench at commit 0123abc+dirty on 2026-11-22T07:40:00Z"; r.Description != want ||
		!r.StartTime.Equal(testReport().Date) || r.Scenario != "make bench" || len(r.JobResults.Properties) != 0 {
		t.Errorf("description %q, start %v, scenario %q, properties %v; want %q, the report's date, make bench, none",
			r.Description, r.StartTime, r.Scenario, r.JobResults.Properties, want)
	}
	jobs := r.JobResults.Jobs
	for name, jr := range jobs {
		if jr.Environment["commit"] != "0123abc+dirty" {
			t.Errorf("%s: environment %v lacks the commit", name, jr.Environment)
		}
		// read back from JSON, numbers are float64
		if jr.Environment["syscallNsBefore"] != 1010.0 || jr.Environment["syscallNsAfter"] != 168.0 {
			t.Errorf("%s: environment %v: want syscallNsBefore 1010 and syscallNsAfter 168", name, jr.Environment)
		}
	}
	if names := slices.Sorted(maps.Keys(jobs)); !slices.Equal(names, []string{"gone-pipelined-16", "ref-unpipelined", "sub-unpipelined"}) {
		t.Fatalf("jobs %q", names)
	}
	cpu, ratio, kernel := measure.BenchCPUPerRequest, measure.BenchRatio, measure.BenchKernelShare
	sub := jobs["sub-unpipelined"]
	wantIts := []map[string]float64{{cpu: 2, ratio: 0.5, kernel: 20}, {cpu: 3, ratio: 0.6, kernel: 40}, {cpu: 6, ratio: 1, kernel: 90}}
	if !slices.EqualFunc(sub.Iterations, wantIts, maps.Equal) {
		t.Errorf("sub iterations %v, want %v", sub.Iterations, wantIts)
	}
	if want := map[string]float64{cpu: 3, ratio: 0.6, kernel: 40}; !maps.Equal(sub.Results, want) {
		t.Errorf("sub results %v, want %v (the medians)", sub.Results, want)
	}
	if s := sub.Spread[ratio]; s.N != 3 || s.Min != 0.5 || s.Max != 1 {
		t.Errorf("sub ratio spread %+v, want 3 runs from 0.5 to 1", s)
	}
	ref := jobs["ref-unpipelined"]
	if want := map[string]float64{cpu: 5, kernel: 60}; !maps.Equal(ref.Results, want) || len(ref.Iterations) != 3 {
		t.Errorf("reference results %v over %d iterations, want %v over 3 (no ratio to itself)", ref.Results, len(ref.Iterations), want)
	}
	gone := jobs["gone-pipelined-16"]
	if want := "n/a: gone cannot pipeline"; len(gone.Results) != 0 || gone.NotMeasured[cpu] != want || gone.NotMeasured[ratio] != want ||
		gone.NotMeasured[kernel] != want {
		t.Errorf("skipped row: results %v, not measured %v; want none, and %q for each", gone.Results, gone.NotMeasured, want)
	}
}

func TestResultNamesARowOnce(t *testing.T) {
	r := testReport()
	r.Comparisons = append(r.Comparisons, r.Comparisons[0])
	if _, err := benchResult(r); err == nil || !strings.Contains(err.Error(), `job "ref-unpipelined"`) {
		t.Errorf("err = %v, want the job named twice", err)
	}
}

func TestRowService(t *testing.T) {
	for _, c := range []struct{ subject, mode, want string }{
		{genCrank, modeH2C, "crank-load-h2c-28-x-70"},
		{appPlaintext, "pipelined 16", "plaintext-app-pipelined-16"},
		{"h2load", modeGRPC, "h2load-grpc-unary-28-x-70"},
	} {
		if got := rowService(row{Subject: c.subject, Mode: c.mode}); got != c.want {
			t.Errorf("rowService(%q, %q) = %q, want %q", c.subject, c.mode, got, c.want)
		}
	}
}

// rounds makes one comparison's samples: the reference at 10 us/req and each subject at its
// values, one per bench run (of one round).
func rounds(subjects map[string][]float64) []sample {
	var out []sample
	for i := range 5 {
		out = append(out, sample{Run: i + 1, Round: 1, Subject: "wrk", Mode: "unpipelined", Requests: 1000, Seconds: 1, ClientUS: 10})
		for _, name := range slices.Sorted(maps.Keys(subjects)) {
			out = append(out, sample{Run: i + 1, Round: 1, Subject: name, Mode: "unpipelined", Requests: 1000, Seconds: 1,
				ClientUS: subjects[name][i]})
		}
	}
	return out
}

// benchFile writes a bench result of one comparison of the subjects against wrk.
func benchFile(t *testing.T, name string, subjects map[string][]float64) string {
	t.Helper()
	rep := testReport()
	rows := []row{{Subject: "wrk", Mode: "unpipelined", Reference: "wrk"}}
	for _, s := range slices.Sorted(maps.Keys(subjects)) {
		rows = append(rows, row{Subject: s, Mode: "unpipelined", Reference: "wrk"})
	}
	rep.Comparisons = []comparison{summarized(comparison{Title: "Generators", Side: sideClient, Rows: rows, Samples: rounds(subjects)})}
	path := filepath.Join(t.TempDir(), name)
	if err := writeResult(path, rep, slog.New(slog.NewTextHandler(io.Discard, nil))); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestCompareBenchResults: crank compare judges each row of two bench results on its runs: a row
// 30% worse in every run regressed, one with the same runs is unchanged (its interval within
// 5%), one whose runs scatter is inconclusive; the exit status is 1 on the regression whatever
// else, 3 on the inconclusive row alone, 0 when every row is unchanged.
func TestCompareBenchResults(t *testing.T) {
	// About 1 % of noise: tight enough to be shown unchanged when each of the six comparisons
	// that can fail the gate is tested at 0.05 / 6 (Bonferroni).
	worse := []float64{5, 5.05, 4.95, 5.02, 4.98}
	same := []float64{4, 4.04, 3.97, 4.02, 4}
	base := benchFile(t, "base.json", map[string][]float64{"worse": worse, "same": same, "noisy": {3, 6, 4, 8, 5}})
	worse30 := make([]float64, len(worse))
	for i, v := range worse {
		worse30[i] = v * 1.3
	}
	head := benchFile(t, "head.json", map[string][]float64{"worse": worse30, "same": same, "noisy": {7, 3, 9, 4, 6}})
	calm := benchFile(t, "calm.json", map[string][]float64{"worse": worse, "same": same, "noisy": {7, 3, 9, 4, 6}})
	quiet := benchFile(t, "quiet.json", map[string][]float64{"worse": worse, "same": same})

	var stdout, stderr bytes.Buffer
	code := gate.Compare(context.Background(), []string{base, head}, &stdout, &stderr)
	if code != gate.ExitRegressed {
		t.Errorf("compare base head: exit %d, want %d\n%s%s", code, gate.ExitRegressed, stdout.String(), stderr.String())
	}
	for _, c := range []struct {
		base, head string
		want       int
	}{{base, calm, gate.ExitInconclusive}, {quiet, quiet, gate.ExitOK}} {
		if code := gate.Compare(context.Background(), []string{c.base, c.head}, io.Discard, &stderr); code != c.want {
			t.Errorf("compare %s %s: exit %d, want %d: %s", filepath.Base(c.base), filepath.Base(c.head), code, c.want, stderr.String())
		}
	}
	for _, svc := range []string{"worse-unpipelined", "same-unpipelined", "noisy-unpipelined", "wrk-unpipelined"} {
		if !strings.Contains(stdout.String(), svc) {
			t.Errorf("compare's report lacks the row %s:\n%s", svc, stdout.String())
		}
	}
	if !strings.Contains(stdout.String(), "inconclusive: noisy-unpipelined bench/ratio: ") {
		t.Errorf("compare's report does not say what would tell for the noisy row:\n%s", stdout.String())
	}

	read := func(path string) *results.Result {
		r, err := results.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	verdicts := func(metrics ...string) map[string]gate.Verdict {
		rep, err := gate.CompareResults(read(base), read(head), gate.CompareOptions{Metrics: metrics}, nil)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]gate.Verdict{}
		for _, s := range rep.Services {
			for _, row := range s.Rows {
				got[s.Service+" "+row.Metric] = row.Compared[0].Verdict
			}
		}
		return got
	}
	cpu, ratio := " "+measure.BenchCPUPerRequest, " "+measure.BenchRatio
	want := map[string]gate.Verdict{
		"worse-unpipelined" + cpu: gate.VerdictRegressed, "worse-unpipelined" + ratio: gate.VerdictRegressed,
		"same-unpipelined" + cpu: gate.VerdictUnchanged, "same-unpipelined" + ratio: gate.VerdictUnchanged,
		"noisy-unpipelined" + cpu: gate.VerdictInconclusive, "noisy-unpipelined" + ratio: gate.VerdictInconclusive,
		"wrk-unpipelined" + cpu: gate.VerdictUnchanged,
	}
	if got := verdicts(); !maps.Equal(got, want) {
		t.Errorf("verdicts:\n got %v\nwant %v", got, want)
	}
	// --metric bench/ratio: each row's ratio alone, judged the same three ways.
	wantRatio := map[string]gate.Verdict{"worse-unpipelined" + ratio: gate.VerdictRegressed,
		"same-unpipelined" + ratio: gate.VerdictUnchanged, "noisy-unpipelined" + ratio: gate.VerdictInconclusive}
	if got := verdicts(measure.BenchRatio); !maps.Equal(got, wantRatio) {
		t.Errorf("--metric %s:\n got %v\nwant %v", measure.BenchRatio, got, wantRatio)
	}
}

// TestRegressionsOnBenchHistory: crank regressions reads a folder of bench results, one per
// commit, as one series per row and figure (the commit must not split them), and finds the step
// of a row 30% worse from the seventh run on.
func TestRegressionsOnBenchHistory(t *testing.T) {
	dir := t.TempDir()
	for i := range 12 {
		rep := testReport()
		rep.Date = rep.Date.Add(time.Duration(i) * time.Hour)
		rep.Commit = fmt.Sprintf("c%02d", i)
		f := 1 + 0.01*float64(i%3)
		if i >= 6 {
			f *= 1.3
		}
		rep.Comparisons = []comparison{summarized(comparison{Title: "Generators", Side: sideClient,
			Rows:    []row{{Subject: "wrk", Mode: "unpipelined", Reference: "wrk"}, {Subject: "crank load", Mode: "unpipelined", Reference: "wrk"}},
			Samples: rounds(map[string][]float64{"crank load": {5 * f, 5.1 * f, 4.9 * f, 5.05 * f, 4.95 * f}})})}
		if err := writeResult(filepath.Join(dir, fmt.Sprintf("r%02d.json", i)), rep, slog.New(slog.NewTextHandler(io.Discard, nil))); err != nil {
			t.Fatal(err)
		}
	}
	var stdout, stderr bytes.Buffer
	code := gate.Regressions(context.Background(), []string{"--history", dir, "--p-value", "0.05", "--fail-on-regression"}, &stdout, &stderr)
	out := stdout.String()
	if code != gate.ExitRegressed || !strings.Contains(out, "2 change point(s) in 3 series over 12 results") {
		t.Errorf("exit %d, want %d and 2 change points in 3 series (wrk's CPU, crank load's CPU and ratio):\n%s%s", code, gate.ExitRegressed, out, stderr.String())
	}
	for _, m := range []string{measure.BenchRatio, measure.BenchCPUPerRequest} {
		if !regexp.MustCompile(`crank-load-unpipelined +amd64 +` + m + ` +6 .* \+30\.00% .* regression`).MatchString(out) {
			t.Errorf("no regression of crank-load-unpipelined %s at run 6:\n%s", m, out)
		}
	}
}
