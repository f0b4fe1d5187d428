package config

import (
	"errors"
	"fmt"
)

// keySweep is a scenario's `sweep:` section (crank sweep), not a service.
const keySweep = "sweep"

// Sweep is a scenario's `sweep:` section:
//
//	sweep:
//	  iterations: 4
//	  baseline: dispatch=shared,cpuSet=0
//	  matrix:
//	    dispatch: [shared, partitioned]
//	    application.cpuSet: ['0', '0-1']
type Sweep struct {
	Matrix     []SweepAxis // in the section's order
	Iterations int         // 0: not set
	Baseline   string
}

// SweepAxis is one key of the matrix and its values: a variable, or <service>.<path>.
type SweepAxis struct {
	Key    string
	Values []string
}

// Sweep returns the scenario's sweep section, nil when it has none.
func (c *Config) Sweep(scenario string) (*Sweep, error) {
	p := c.section(keyScenarios).get(scenario).pair(keySweep)
	if p == nil {
		return nil, nil
	}
	s, errs := decodeSweep(scenario, *p)
	return s, errors.Join(errs...)
}

func decodeSweep(scenario string, p pair) (*Sweep, []error) {
	where := fmt.Sprintf("scenario %q: sweep", scenario)
	if !p.value.isMap() {
		return nil, []error{fmt.Errorf("%s: %s must be a mapping (matrix, iterations, baseline)", p.keyPos, where)}
	}
	s := &Sweep{}
	var errs []error
	fail := func(pos Pos, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: %s: %s", pos, where, fmt.Sprintf(format, args...)))
	}
	for _, e := range p.value.pairs {
		switch e.key {
		case "matrix":
			if !e.value.isMap() || len(e.value.pairs) == 0 {
				fail(e.keyPos, "matrix must map keys to lists of values")
				continue
			}
			for _, ax := range e.value.pairs {
				a := SweepAxis{Key: ax.key}
				for _, it := range ax.value.items {
					v, ok := it.str()
					if !ok || v == "" {
						fail(it.pos, "matrix %q: values must be non-empty scalars", ax.key)
					}
					a.Values = append(a.Values, v)
				}
				if !ax.value.isList() || len(a.Values) == 0 {
					fail(ax.keyPos, "matrix %q: want a list of values, e.g. [shared, partitioned]", ax.key)
				}
				s.Matrix = append(s.Matrix, a)
			}
		case "iterations":
			n, ok := e.value.value.(int)
			if !ok || n < 1 {
				fail(e.keyPos, "iterations must be a whole number of at least 1")
			}
			s.Iterations = n
		case "baseline":
			s.Baseline, _ = e.value.str()
		default:
			fail(e.keyPos, "unknown key %q (want matrix, iterations, baseline)", e.key)
		}
	}
	return s, errs
}
