package bisect

import (
	"strings"
	"testing"
)

// TestRowSaysRerun: a commit whose iterations were run again on a disturbed machine says how many, beside the
// iterations kept, in the line and in the report's cell (one Row writes both).
func TestRowSaysRerun(t *testing.T) {
	f := FigureOf("load:http/rps/mean")
	s := Step{Commit: Commit{SHA: "0123456789abcdef", Subject: "change 4"}, Mean: 70000, HalfWidth: 700, Iterations: 6,
		Change: -0.02, GoodMean: 71429, PValue: 0.2, Verdict: Good, Rerun: 2}
	r := f.Row(2, 3, s)
	if r.Iterations != "6" || r.Rerun != "2 more run again: machine disturbed" {
		t.Errorf("iterations cell %q, rerun %q", r.Iterations, r.Rerun)
	}
	want := "step 2 of about 3: 0123456789 change 4: 70,000 req/s ± 1.0 % over 6 iterations (2 more run again: machine disturbed), -2.0 % from good's 71,429 req/s beside it (p 0.200): good"
	if got := r.Line(); got != want {
		t.Errorf("line\n%s\nwant\n%s", got, want)
	}
	s.Rerun = 0
	if got := f.Row(2, 3, s).Line(); strings.Contains(got, "run again") {
		t.Errorf("no rerun, yet %q", got)
	}
}

// TestEstimateAsThePath: a progress line's estimate writes the mean with the figure's rounding and
// unit, the path's cells for the same step: a latency of 0.45 ms is not "0" (the round lines wrote
// every figure as a whole number).
func TestEstimateAsThePath(t *testing.T) {
	for _, c := range []struct {
		metric string
		mean   float64
		want   string
	}{
		{"load:http/rps/mean", 48108.4, "48,108 req/s ± 2.1 %"},
		{"load:http/latency/mean", 0.4512, "0.45 ms ± 2.1 %"},
		{"app:my/counter", 3.14159, "3.14 ± 2.1 %"},
	} {
		f := FigureOf(c.metric)
		got := f.Estimate(c.mean, 0.021)
		if got != c.want {
			t.Errorf("%s: %q, want %q", c.metric, got, c.want)
		}
		r := f.Row(1, 4, Step{Mean: c.mean, HalfWidth: 0.021 * c.mean, Iterations: 3, Verdict: Good})
		if row := r.Mean + " " + r.Interval; row != got {
			t.Errorf("%s: the path's cells %q, the progress line %q", c.metric, row, got)
		}
	}
}

func TestPlaceText(t *testing.T) {
	for way, want := range map[float64]string{-0.001: "at 0.00 ± 0.15 of the way from good to bad", 0.94: "at 0.94 ± 0.15 of the way from good to bad",
		-0.3: "at -0.30 ± 0.15 of the way from good to bad"} {
		if got := PlaceText(way, 0.15); got != want {
			t.Errorf("PlaceText(%v) = %q, want %q", way, got, want)
		}
	}
}

// TestRoundEstimate: the first rounds show a commit's mean alone, saying from which round its
// interval is shown; then the interval (issue 48: "± 0.0 %", "± 204.1 %" in early rounds).
func TestRoundEstimate(t *testing.T) {
	fig := Figure{Format: "n0", Unit: "req/s"}
	for round, want := range map[int]string{1: "48,108 req/s", 2: "48,108 req/s", 3: "48,108 req/s ± 2.1 %"} {
		if got := roundEstimate(fig, 48108, 0.021, round); got != want {
			t.Errorf("round %d: %q, want %q", round, got, want)
		}
	}
	if intervalsFrom(2) != " (intervals from round 3)" || intervalsFrom(3) != "" {
		t.Errorf("intervalsFrom: %q, %q", intervalsFrom(2), intervalsFrom(3))
	}
}
