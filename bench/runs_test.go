package main

import (
	"math"
	"testing"

	"github.com/crankshaft/crankshaft/internal/measure"
)

// twoRunsOfTwoRounds: run 1's rounds cost the reference 10 and 10, the subject 5 and 7 (ratios 0.5,
// 0.7); run 2's, after a restart, the reference 20 and 20, the subject 18 and 18 (0.9, 0.9). Round 1
// of run 2 must be paired with run 2's reference, not run 1's.
func twoRunsOfTwoRounds() []sample {
	mk := func(run, round int, subject string, us float64) sample {
		return sample{Run: run, Round: round, Subject: subject, Mode: "unpipelined", Requests: 1000, Seconds: 1, ClientUS: us}
	}
	return []sample{
		mk(1, 1, "ref", 10), mk(1, 1, "sub", 5), mk(1, 2, "sub", 7), mk(1, 2, "ref", 10),
		mk(2, 1, "ref", 20), mk(2, 1, "sub", 18), mk(2, 2, "sub", 18), mk(2, 2, "ref", 20),
		mk(3, 1, "ref", 10), mk(3, 1, "sub", 6), mk(3, 2, "sub", 6), mk(3, 2, "ref", 10),
	}
}

// TestRoundsPooledRunsKept: a row's figures are medians over the rounds of every run pooled, the
// rounds of a run paired within it; each run keeps its medians, and the JSON result has one
// iteration per run.
func TestRoundsPooledRunsKept(t *testing.T) {
	rows := []row{{Subject: "ref", Mode: "unpipelined", Reference: "ref"}, {Subject: "sub", Mode: "unpipelined", Reference: "ref"}}
	sub := summarize(rows, twoRunsOfTwoRounds(), sideClient)[1]
	want := []runFigure{{Run: 1, Rounds: 2, US: 6, Ratio: 0.6}, {Run: 2, Rounds: 2, US: 18, Ratio: 0.9}, {Run: 3, Rounds: 2, US: 6, Ratio: 0.6}}
	if len(sub.Runs) != len(want) {
		t.Fatalf("runs %+v, want %+v", sub.Runs, want)
	}
	for i, w := range want {
		if g := sub.Runs[i]; g.Run != w.Run || g.Rounds != w.Rounds || math.Abs(g.US-w.US) > 1e-9 || math.Abs(g.Ratio-w.Ratio) > 1e-9 {
			t.Errorf("run %d: %+v, want %+v", i+1, g, w)
		}
	}
	// Pooled: ratios 0.5 0.6 0.6 0.7 0.9 0.9, CPU 5 6 6 7 18 18 (the medians of the runs would
	// give 0.6 and 6).
	if math.Abs(sub.Ratio-0.65) > 1e-9 || sub.Median != 6.5 || sub.Used != 6 {
		t.Errorf("row ratio %v, median %v over %d rounds; want 0.65, 6.5 (medians of the pooled rounds) over 6", sub.Ratio, sub.Median, sub.Used)
	}
	if got := runRange(sub.Runs); got != "0.60-0.90x over 3 runs" {
		t.Errorf("runRange = %q", got)
	}
	if n := cleanPairs(rows, twoRunsOfTwoRounds()); n != 6 {
		t.Errorf("cleanPairs = %d, want 6 (every round of every run has both)", n)
	}
	rep := testReport()
	rep.Comparisons = []comparison{summarized(comparison{Title: "G", Side: sideClient, Rows: rows, Samples: twoRunsOfTwoRounds()})}
	res, err := benchResult(rep)
	if err != nil {
		t.Fatal(err)
	}
	jr := res.JobResults.Jobs["sub-unpipelined"]
	if len(jr.Iterations) != 3 || math.Abs(jr.Iterations[1][measure.BenchRatio]-0.9) > 1e-9 || math.Abs(jr.Results[measure.BenchRatio]-0.65) > 1e-9 {
		t.Errorf("iterations %v, results %v; want one per run (run 2's ratio 0.9), the ratio 0.65", jr.Iterations, jr.Results)
	}
}

func TestRunRangeFewRuns(t *testing.T) {
	if got := runRange(nil); got != "n/a" {
		t.Errorf("no run: %q", got)
	}
	if got := runRange([]runFigure{{Run: 1, Ratio: 0.5}, {Run: 2, Ratio: math.NaN()}}); got != "1 run" {
		t.Errorf("one run with a ratio: %q", got)
	}
}
