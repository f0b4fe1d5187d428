package cli

import (
	"strconv"
	"strings"
	"time"

	"github.com/crankshaft/crankshaft/internal/controller"
	"github.com/crankshaft/crankshaft/internal/results"
)

// spreadFlags are crank's options over iterations: --exclude, --exclude-order, --repeat, --span.
type spreadFlags struct {
	exclude      results.Exclusion
	excludeSet   bool
	orderSet     bool
	iterationSet bool
	repeat       string
	span         time.Duration
	auto         autoIterations
}

// set reads the iteration flags; handled is false for any other flag.
func (s *spreadFlags) set(name, value string) (handled bool, err error) {
	switch name {
	case "exclude", "x":
		lo, hi, ok := results.ParseExclude(value)
		if !ok {
			return true, usagef("--exclude %q: want N (the N lowest and N highest), LOW:HIGH, e.g. 1:0 (the lowest), 0:3 (the 3 highest)", value)
		}
		s.exclude.Low, s.exclude.High, s.excludeSet = lo, hi, true
	case "exclude-order", "xo":
		svc, res, ok := strings.Cut(value, ":")
		if !ok || svc == "" || res == "" {
			return true, usagef("--exclude-order %q: want SERVICE:RESULT, e.g. load:http/rps/mean", value)
		}
		s.exclude.Service, s.exclude.Result, s.orderSet = svc, res, true
	case "precision":
		p, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(value), "%"), 64)
		if err != nil || p <= 0 || p >= 100 {
			return true, usagef("--precision %q: want a share of the mean such as 2%%", value)
		}
		s.auto.precision, s.auto.precisionSet = p/100, true
	case "max-iterations":
		n, err := strconv.Atoi(value)
		if err != nil || n < MinAutoIterations {
			return true, usagef("--max-iterations %q: want a whole number of at least %d", value, MinAutoIterations)
		}
		s.auto.max, s.auto.maxSet = n, true
	case "repeat":
		if value == "" {
			return true, usagef("--repeat: want the name of a service of the scenario")
		}
		s.repeat = value
	case "span":
		d, err := controller.ParseSpan(value)
		if err != nil {
			return true, usagef("--span %q: %v", value, err)
		}
		s.span = d
	default:
		return false, nil
	}
	return true, nil
}

// check applies crank's rules between the flags, given --iterations.
func (s *spreadFlags) check(iterations int) error {
	if !s.auto.on && (s.auto.precisionSet || s.auto.maxSet) {
		return usagef("--precision and --max-iterations go with --iterations auto")
	}
	switch {
	case s.span > 0 && s.iterationSet:
		return usagef("--iterations and --span can't be used together")
	case s.orderSet && !s.excludeSet:
		return usagef("--exclude-order needs --exclude LOW:HIGH")
	case s.excludeSet && !s.orderSet:
		return usagef("--exclude needs --exclude-order, e.g. --exclude-order load:http/rps/mean")
	case s.excludeSet && !s.iterationSet:
		return usagef("--exclude can only be used with --iterations")
	case s.excludeSet && iterations <= s.exclude.Low+s.exclude.High:
		return usagef("--exclude %d:%d leaves nothing of %d iterations", s.exclude.Low, s.exclude.High, iterations)
	}
	return nil
}
