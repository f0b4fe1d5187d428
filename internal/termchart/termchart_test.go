package termchart

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/results"
)

// Values worked by hand with crank's rules: step = (max - base) / 8 for bar, / 15 for hex.
func TestLineAsCrankDrawsIt(t *testing.T) {
	for _, tc := range []struct {
		vals []float64
		hex  bool
		auto bool
		want string
	}{
		{[]float64{0, 1, 2, 4, 8}, false, false, " ▁▂▄█"},
		{[]float64{10, 12, 14, 18}, false, true, " ▂▄█"}, // auto: the lowest value is the base
		{[]float64{0, 5, 15}, true, false, " 5F"},
		{[]float64{3, 3}, false, false, "██"},
		{[]float64{7}, false, false, ""},    // one value: no chart
		{[]float64{0, 0}, false, false, ""}, // nothing to scale
	} {
		chars := barChars
		if tc.hex {
			chars = hexChars
		}
		if got := Line(tc.vals, chars, tc.auto); got != tc.want {
			t.Errorf("Line(%v, hex=%v, auto=%v) = %q, want %q", tc.vals, tc.hex, tc.auto, got, tc.want)
		}
	}
}

func TestColumnAndTimeline(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var tl []api.Measurement
	for i, v := range []float64{100, 200, 400, 800} {
		tl = append(tl, api.Measurement{Name: serverRPS, Timestamp: t0.Add(time.Duration(i) * time.Second), Value: v})
	}
	r := &results.Result{JobResults: results.JobResults{Jobs: map[string]*results.JobResult{"application": {
		Results: map[string]float64{serverRPS: 375}, Measurements: [][]api.Measurement{tl}}}}}
	var b bytes.Buffer
	if err := results.WriteTablesWith(&b, r, []string{"application"}, Column(Options{})); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "| runtime-counter/requests-per-second | 375.00 |      | ▁▂▄█ |") {
		t.Errorf("table:\n%s", b.String())
	}
	b.Reset()
	Timelines(&b, r, []string{"application"}, Options{})
	if !strings.Contains(b.String(), "application: runtime-counter/requests-per-second (req/s), 4 samples") || !strings.Contains(b.String(), "800 ┤") {
		t.Errorf("timeline:\n%s", b.String())
	}
}
