package runner

import (
	"strings"
	"testing"

	"github.com/crankshaft/crankshaft/internal/measure"
	"github.com/crankshaft/crankshaft/internal/results"
	"github.com/crankshaft/crankshaft/internal/threshold"
)

func loadResult(reqs, bad, errs, p99 float64) *results.Result {
	return &results.Result{JobResults: results.JobResults{Jobs: map[string]*results.JobResult{
		"load": {Results: map[string]float64{measure.Requests: reqs, measure.BadResponses: bad, measure.Errors: errs, measure.Latency99: p99}},
		"app":  {Results: map[string]float64{measure.CPU: 50}},
	}}}
}

func TestJudge(t *testing.T) {
	v := Verdict{MaxErrorRate: DefaultMaxErrorRate}
	lat, _ := threshold.Parse("load:http/latency/99<5")
	for _, tc := range []struct {
		name   string
		res    *results.Result
		ths    []threshold.Threshold
		code   int
		reason string
	}{
		{"healthy", loadResult(1e6, 0, 0, 2), []threshold.Threshold{lat}, ExitOK, ""},
		{"1% exactly passes", loadResult(1000, 10, 0, 2), nil, ExitOK, ""},
		{"all 404", loadResult(846240, 846240, 0, 2), nil, ExitFailed, "846,240 of 846,240 requests failed (100.0%, more than the 1% allowed by --max-error-rate): 846,240 bad responses"},
		{"socket errors", loadResult(900, 0, 100, 2), nil, ExitFailed, "100 of 1,000 requests failed (10.0%"},
		{"no request", loadResult(0, 0, 0, 0), nil, ExitFailed, "the load made no request"},
		{"slow", loadResult(1e6, 0, 0, 9), []threshold.Threshold{lat}, ExitThresholds, "1 of 1 thresholds failed"},
		{"errors win over thresholds", loadResult(10, 10, 0, 9), []threshold.Threshold{lat}, ExitFailed, "requests failed"},
	} {
		res := tc.res
		code := judge(res, v, tc.ths)
		if code != tc.code || res.ReturnCode != code {
			t.Errorf("%s: code %d, returnCode %d; want %d", tc.name, code, res.ReturnCode, tc.code)
		}
		if got := strings.Join(res.Failures, "; "); (tc.reason == "") != (got == "") || !strings.Contains(got, tc.reason) {
			t.Errorf("%s: failures %q, want %q", tc.name, got, tc.reason)
		}
	}
	off := Verdict{MaxErrorRate: -1}
	if code := judge(loadResult(10, 10, 0, 1), off, nil); code != ExitOK {
		t.Errorf("--max-error-rate off: code %d", code)
	}
}
