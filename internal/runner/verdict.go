package runner

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/crankshaft/crankshaft/internal/config"
	"github.com/crankshaft/crankshaft/internal/measure"
	"github.com/crankshaft/crankshaft/internal/results"
	"github.com/crankshaft/crankshaft/internal/termtext"
	"github.com/crankshaft/crankshaft/internal/threshold"
)

// DefaultMaxErrorRate is the share of failed requests (bad responses and socket errors) above
// which a run fails: --max-error-rate.
const DefaultMaxErrorRate = 0.01

// Verdict is a run's pass/fail settings: --threshold and --max-error-rate.
type Verdict struct {
	Thresholds   []threshold.Threshold
	MaxErrorRate float64 // a fraction; negative: never fail on errors
	// NoScenarioThresholds: Thresholds are the run's only ones, the scenario's thresholds: are
	// neither checked nor judged (crank capacity: its SLOs are its steps' thresholds; a
	// scenario's are written for its own load, not for the rates a search tries).
	NoScenarioThresholds bool
}

// scenarioThresholds are the scenario's thresholds a run with these settings is judged by.
func (v Verdict) scenarioThresholds(r *config.Resolved) []threshold.Threshold {
	if v.NoScenarioThresholds {
		return nil
	}
	return ScenarioThresholds(r)
}

// judge decides the run's return code and records it, with the reasons and every threshold
// checked, in res: failed requests above the limit fail the run (ExitFailed), then a crossed
// threshold (ExitThresholds).
func judge(res *results.Result, v Verdict, scenario []threshold.Threshold) int {
	res.Failures = nil
	code := ExitOK
	if msg, failed := errorFailure(res, v.MaxErrorRate); failed {
		res.Failures = append(res.Failures, msg)
		code = ExitFailed
	}
	if behind := results.FellBehind(res.JobResults.Jobs); len(behind) > 0 {
		res.Failures = append(res.Failures, behind...)
		code = ExitFailed
	}
	res.Thresholds = threshold.Check(res, append(append([]threshold.Threshold{}, scenario...), v.Thresholds...))
	if crossed := thresholdsFailed(res.Thresholds); crossed != "" {
		res.Failures = append(res.Failures, crossed)
		if code == ExitOK {
			code = ExitThresholds
		}
	}
	res.ReturnCode = code
	return code
}

// thresholdsFailed is the failure the crossed thresholds give ("" when none was crossed): their
// count; the checks themselves say which.
func thresholdsFailed(checks []results.ThresholdCheck) string {
	crossed := 0
	for _, c := range checks {
		if !c.Pass {
			crossed++
		}
	}
	if crossed == 0 {
		return ""
	}
	return fmt.Sprintf("%d of %d thresholds failed", crossed, len(checks))
}

// RunFailures are a judged result's failures besides its crossed thresholds (res.Thresholds say
// those): failed requests above --max-error-rate, a generator of a split load that fell behind,
// the run's and the scripts' errors.
func RunFailures(res *results.Result) []string {
	crossed := thresholdsFailed(res.Thresholds)
	return slices.DeleteFunc(slices.Clone(res.Failures), func(f string) bool { return crossed != "" && f == crossed })
}

// errorFailure tells whether the load jobs' failed requests exceed the limit, and says so.
func errorFailure(res *results.Result, limit float64) (string, bool) {
	var bad, errs, reqs float64
	var loads int
	for _, jr := range res.JobResults.Jobs {
		if jr == nil {
			continue
		}
		if _, ok := jr.Results[measure.Requests]; !ok {
			continue
		}
		loads++
		bad += jr.Results[measure.BadResponses]
		errs += jr.Results[measure.Errors]
		reqs += jr.Results[measure.Requests]
	}
	attempts := reqs + errs
	if loads == 0 || limit < 0 {
		return "", false
	}
	if attempts <= 0 {
		return "the load made no request: nothing was measured", true
	}
	share := (bad + errs) / attempts
	if share <= limit {
		return "", false
	}
	return fmt.Sprintf("%s of %s requests failed (%.1f%%, more than the %s allowed by --max-error-rate): "+
		"%s bad responses (status not 2xx/3xx), %s socket errors",
		results.Format(bad+errs, "n0"), results.Format(attempts, "n0"), 100*share,
		strconv.FormatFloat(100*limit, 'g', -1, 64)+"%", results.Format(bad, "n0"), results.Format(errs, "n0")), true
}

// writeVerdict prints the thresholds (to w) and why the run failed (to errw).
func writeVerdict(w, errw io.Writer, res *results.Result) {
	if len(res.Thresholds) > 0 {
		fmt.Fprintln(w, "\nThresholds:")
		for _, c := range res.Thresholds {
			fmt.Fprintln(w, "  "+threshold.Line(c))
		}
	}
	for _, f := range res.Failures {
		fmt.Fprintf(errw, "crank: run failed (exit %d): %s\n", res.ReturnCode, termtext.Lines(f))
	}
}

// ScenarioThresholds gathers the thresholds of every resolved service.
func ScenarioThresholds(r *config.Resolved) []threshold.Threshold {
	var out []threshold.Threshold
	for _, s := range r.Services {
		out = append(out, s.Thresholds...)
	}
	return out
}

// CheckThresholdServices fails a --threshold naming a service the scenario does not have.
func CheckThresholdServices(ths []threshold.Threshold, r *config.Resolved) error {
	var names []string
	for _, s := range r.Services {
		names = append(names, s.Name)
	}
	for _, t := range ths {
		if t.Service != "" && !slices.Contains(names, t.Service) {
			return fmt.Errorf("--threshold %s: no service %q in scenario %q; services: %s", t, t.Service, r.Scenario, strings.Join(names, ", "))
		}
	}
	return nil
}
