package cli

import (
	"strconv"
	"strings"

	"github.com/crankshaft/crankshaft/internal/runner"
	"github.com/crankshaft/crankshaft/internal/threshold"
)

// ExitThresholds is the exit code of a run that crossed a threshold (k6's code for the same).
const ExitThresholds = runner.ExitThresholds

// DefaultMaxErrorRate is the share of failed requests (bad responses and socket errors) above
// which a run fails: --max-error-rate.
const DefaultMaxErrorRate = runner.DefaultMaxErrorRate

// verdictFlags are the run's pass/fail settings: --threshold and --max-error-rate.
type verdictFlags struct {
	thresholds   []threshold.Threshold
	maxErrorRate float64 // a fraction; negative: never fail on errors
}

func newVerdictFlags() verdictFlags { return verdictFlags{maxErrorRate: DefaultMaxErrorRate} }

// plan is the verdict flags as internal/run takes them.
func (v verdictFlags) plan() runner.Verdict {
	return runner.Verdict{Thresholds: v.thresholds, MaxErrorRate: v.maxErrorRate}
}

// set reads the verdict flags; handled is false for any other flag.
func (v *verdictFlags) set(name, value string) (handled bool, err error) {
	switch name {
	case "threshold":
		t, err := threshold.Parse(value)
		if err != nil {
			return true, usagef("--threshold: %v", err)
		}
		v.thresholds = append(v.thresholds, t)
	case "max-error-rate":
		if value == "off" || value == "none" {
			v.maxErrorRate = -1
			return true, nil
		}
		s := strings.TrimSpace(value)
		x, err := strconv.ParseFloat(strings.TrimSuffix(s, "%"), 64)
		if err != nil || x < 0 || (!strings.HasSuffix(s, "%") && x > 1) || (strings.HasSuffix(s, "%") && x > 100) {
			return true, usagef("--max-error-rate %q: want a share of requests such as 1%% or 0.01, or off", value)
		}
		if strings.HasSuffix(s, "%") {
			x /= 100
		}
		v.maxErrorRate = x
	default:
		return false, nil
	}
	return true, nil
}
