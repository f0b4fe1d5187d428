package gate

import (
	"slices"
	"testing"

	"github.com/crankshaft/crankshaft/internal/measure"
	"github.com/crankshaft/crankshaft/internal/results/resultstest"
)

// benchGolden is the result `make bench` writes (docs/PERFORMANCE.json) for bench's in-memory test
// report: bench's TestResultGolden keeps it equal to what the bench writes, this test keeps it read.
const benchGolden = "../../bench/testdata/results.json"

// TestBenchMetricsKnown: the bench's figures have their direction from the catalog (bench/ratio
// matches no name rule: without its entry it would never be gated) and are compared by default.
func TestBenchMetricsKnown(t *testing.T) {
	for _, name := range []string{measure.BenchRatio, measure.BenchCPUPerRequest} {
		if d := DirectionOf(name, nil); d != LowerIsBetter {
			t.Errorf("DirectionOf(%s) = %v, want %v", name, d, LowerIsBetter)
		}
		if !isDefaultMetric(name) {
			t.Errorf("%s is not compared by default", name)
		}
	}
}

// TestBenchResultRead: crank compare reads the bench's JSON as it is written: every row is a
// service with both figures, lower is better, and the rounds are the samples of a test.
func TestBenchResultRead(t *testing.T) {
	r := resultstest.ReadResult(t, benchGolden)
	rep, err := CompareResults(r, r, CompareOptions{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	type line struct {
		service, metric string
		verdict         Verdict
		test            string
	}
	var got []line
	for _, s := range rep.Services {
		for _, row := range s.Rows {
			if row.Direction != LowerIsBetter {
				t.Errorf("%s %s: direction %v", s.Service, row.Metric, row.Direction)
			}
			got = append(got, line{s.Service, row.Metric, row.Compared[0].Verdict, row.Compared[0].Test})
		}
	}
	// Three rounds a side, scattered by tens of percent: the file against itself cannot show a
	// change within 5% (Welch's interval of the ratio is [0.44, 2.26] for the ratio): inconclusive.
	w := TestWelch
	want := []line{
		{"gone-pipelined-16", measure.BenchRatio, VerdictNotMeasured, TestNone},
		{"gone-pipelined-16", measure.BenchCPUPerRequest, VerdictNotMeasured, TestNone},
		{"ref-unpipelined", measure.BenchCPUPerRequest, VerdictInconclusive, w},
		{"sub-unpipelined", measure.BenchRatio, VerdictInconclusive, w},
		{"sub-unpipelined", measure.BenchCPUPerRequest, VerdictInconclusive, w},
	}
	if !slices.Equal(got, want) {
		t.Errorf("rows:\n got %v\nwant %v", got, want)
	}
}
