package cli

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/measure"
	"github.com/crankshaft/crankshaft/internal/results"
	"github.com/crankshaft/crankshaft/internal/threshold"
)

func TestVerdictAndSpreadFlags(t *testing.T) {
	none := func(string) string { return "" }
	f, err := parseRunFlags(strings.Fields("--config a.yml --scenario x --iterations 5 --exclude 1:2 --exclude-order load:http/rps/mean "+
		"--repeat load --threshold load:http/latency/99<5 --threshold http/requests/errors==0 --max-error-rate 5% --no-probe"), none)
	if err != nil {
		t.Fatal(err)
	}
	e := f.spread.exclude
	if e.Low != 1 || e.High != 2 || e.Service != "load" || e.Result != "http/rps/mean" || f.spread.repeat != "load" || !f.noProbe {
		t.Errorf("spread flags %+v", f.spread)
	}
	if len(f.verdict.thresholds) != 2 || f.verdict.thresholds[0].String() != "load: http/latency/99 < 5" || f.verdict.maxErrorRate != 0.05 {
		t.Errorf("verdict flags %+v", f.verdict)
	}
	if f, _ := parseRunFlags(strings.Fields("--config a.yml --scenario x --span 00:01:30 --max-error-rate off"), none); f.spread.span != 90*time.Second || f.verdict.maxErrorRate >= 0 {
		t.Errorf("span %s, max error rate %v", f.spread.span, f.verdict.maxErrorRate)
	}
	for args, want := range map[string]string{
		"--iterations 3 --exclude 1":                         "--exclude needs --exclude-order",
		"--exclude-order load:x":                             "--exclude-order needs --exclude",
		"--exclude 1 --exclude-order load:x":                 "--exclude can only be used with --iterations",
		"--iterations 2 --exclude 1 --exclude-order load:x":  "leaves nothing of 2 iterations",
		"--iterations 3 --exclude -1 --exclude-order load:x": "--exclude \"-1\"",
		"--iterations 3 --exclude 1 --exclude-order load":    "want SERVICE:RESULT",
		"--iterations 3 --span 10s":                          "can't be used together",
		"--span soon":                                        "want HH:mm:ss",
		"--span 00:00:00":                                    "positive",
		"--threshold http/latency/99":                        "want [service:]metric OP number",
		"--max-error-rate 5":                                 "want a share of requests",
		"--max-error-rate 200%":                              "want a share of requests",
	} {
		_, err := parseRunFlags(append(strings.Fields("--config a.yml --scenario x"), strings.Fields(args)...), none)
		var ue *usageError
		if err == nil || !errors.As(err, &ue) || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: got %v, want usage error with %q", args, err, want)
		}
	}
}

func loadResult(reqs, bad, errs, p99 float64) *results.Result {
	return &results.Result{JobResults: results.JobResults{Jobs: map[string]*results.JobResult{
		"load": {Results: map[string]float64{measure.Requests: reqs, measure.BadResponses: bad, measure.Errors: errs, measure.Latency99: p99}},
		"app":  {Results: map[string]float64{measure.CPU: 50}},
	}}}
}

func TestJudge(t *testing.T) {
	v := newVerdictFlags()
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
	off := newVerdictFlags()
	off.maxErrorRate = -1
	if code := judge(loadResult(10, 10, 0, 1), off, nil); code != ExitOK {
		t.Errorf("--max-error-rate off: code %d", code)
	}
}
