package config

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/crankshaft/crankshaft/internal/threshold"
)

// keyCapacity is a scenario's `capacity:` section (crank capacity), not a service.
const keyCapacity = "capacity"

// isScenarioSection tells a scenario's own section (sweep, capacity) from a service.
func isScenarioSection(key string) bool { return key == keySweep || key == keyCapacity }

// Capacity is a scenario's `capacity:` section; crank capacity's flags override each key:
//
//	capacity:
//	  slo:
//	    - load:http/latency/99 < 10
//	    - load:http/requests/error-rate < 0.1
//	  precision: 5%
//	  startRate: 1000
//	  maxSteps: 12
//	  maxTime: 5m
//	  stepDuration: 4
//	  stepWarmup: 1
type Capacity struct {
	SLOs []threshold.Threshold
	// Precision is a share (0.05 for 5 %).
	Precision, StartRate     float64
	MaxSteps                 int
	MaxTime                  time.Duration
	StepDuration, StepWarmup float64
	// given holds the keys the section sets, by crank capacity's flag names (start-rate...).
	given map[string]bool
}

// Has tells whether the section sets the key of crank capacity's flag name (start-rate, max-time...).
func (c *Capacity) Has(flag string) bool { return c.given[flag] }

// Capacity returns the scenario's capacity section, nil when it has none.
func (c *Config) Capacity(scenario string) (*Capacity, error) {
	p := c.section(keyScenarios).get(scenario).pair(keyCapacity)
	if p == nil {
		return nil, nil
	}
	s, errs := decodeCapacity(scenario, *p)
	return s, errors.Join(errs...)
}

func decodeCapacity(scenario string, p pair) (*Capacity, []error) {
	where := fmt.Sprintf("scenario %q: capacity", scenario)
	if !p.value.isMap() {
		return nil, []error{fmt.Errorf("%s: %s must be a mapping (slo, precision, startRate, maxSteps, maxTime, stepDuration, stepWarmup)", p.keyPos, where)}
	}
	s := &Capacity{given: map[string]bool{}}
	var errs []error
	fail := func(pos Pos, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: %s: %s", pos, where, fmt.Sprintf(format, args...)))
	}
	number := func(e pair, min float64) float64 {
		text, _ := e.value.str()
		v, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(text, "%")), 64)
		if err != nil || v < min {
			fail(e.keyPos, "%s %q: want a number of at least %g", e.key, text, min)
		}
		return v
	}
	for _, e := range p.value.pairs {
		switch e.key {
		case "slo":
			items := []*node{e.value}
			if e.value.isList() {
				items = e.value.items
			}
			for _, it := range items {
				text, ok := it.str()
				t, err := threshold.Parse(text)
				if !ok || err != nil {
					fail(it.pos, "slo: %v", err)
					continue
				}
				t.Source = it.pos.String()
				s.SLOs = append(s.SLOs, t)
			}
		case "precision":
			s.Precision = number(e, 0.1) / 100
		case "startRate":
			s.StartRate = number(e, 1)
		case "maxSteps":
			s.MaxSteps = int(number(e, 1))
		case "maxTime":
			text, _ := e.value.str()
			d, err := time.ParseDuration(text)
			if err != nil || d <= 0 {
				fail(e.keyPos, "maxTime %q: want a duration such as 5m", text)
			}
			s.MaxTime = d
		case "stepDuration":
			s.StepDuration = number(e, 1)
		case "stepWarmup":
			s.StepWarmup = number(e, 0)
		default:
			fail(e.keyPos, "unknown key %q (want slo, precision, startRate, maxSteps, maxTime, stepDuration, stepWarmup)", e.key)
			continue
		}
		s.given[flagOf(e.key)] = true
	}
	return s, errs
}

// flagOf is crank capacity's flag for a key of the section: startRate -> start-rate.
func flagOf(key string) string {
	var b strings.Builder
	for _, r := range key {
		if r >= 'A' && r <= 'Z' {
			b.WriteByte('-')
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}
