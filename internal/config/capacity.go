package config

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/crankshaft/crankshaft/internal/capacity"
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
	// Settings are crank capacity's defaults with the section's keys applied, each parsed by
	// capacity.Settings.Set as the flags are.
	Settings capacity.Settings
}

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
		return nil, []error{fmt.Errorf("%s: %s must be a mapping (%s)", p.keyPos, where, capacityKeys())}
	}
	s := &Capacity{Settings: capacity.DefaultSettings()}
	var errs []error
	fail := func(pos Pos, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: %s: %s", pos, where, fmt.Sprintf(format, args...)))
	}
	for _, e := range p.value.pairs {
		if e.key == "slo" {
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
			continue
		}
		name := flagOf(e.key)
		if !slices.Contains(capacity.SettingNames, name) || e.key != camelOf(name) {
			fail(e.keyPos, "unknown key %q (want %s)", e.key, capacityKeys())
			continue
		}
		text, ok := e.value.str()
		if !ok {
			fail(e.keyPos, "%s: want one value (a number, or a duration for maxTime)", e.key)
			continue
		}
		if err := s.Settings.Set(name, text); err != nil {
			fail(e.value.pos, "%s %q: %v", e.key, text, err)
			continue
		}
	}
	return s, errs
}

// capacityKeys lists the section's keys.
func capacityKeys() string {
	keys := []string{"slo"}
	for _, n := range capacity.SettingNames {
		keys = append(keys, camelOf(n))
	}
	return strings.Join(keys, ", ")
}

// camelOf is a section's key for crank capacity's flag: start-rate -> startRate.
func camelOf(flag string) string {
	parts := strings.Split(flag, "-")
	for i := 1; i < len(parts); i++ {
		parts[i] = strings.ToUpper(parts[i][:1]) + parts[i][1:]
	}
	return strings.Join(parts, "")
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
