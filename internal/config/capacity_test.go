package config

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/capacity"
)

const capacityYAML = `jobs:
  app: {executable: app}
scenarios:
  s:
    application: {job: app}
    capacity:
      slo: [application:http/latency/99 < 10]
      precision: 10%
      startRate: 2000
      maxSteps: 7
      maxTime: 90s
      stepDuration: 3
`

// TestScenarioCapacity: the section's numbers go through capacity.Settings.Set, crank capacity's
// flags' own parser, over its defaults; a bad value is refused naming the file, the line, the key
// and what the flag would say.
func TestScenarioCapacity(t *testing.T) {
	load := func(yml string) (*Capacity, error) {
		dir := writeTree(t, map[string]string{"s.yml": yml})
		c, err := Load(t.Context(), []string{filepath.Join(dir, "s.yml")}, LoadOptions{})
		if err != nil {
			return nil, err
		}
		return c.Capacity("s")
	}
	got, err := load(capacityYAML)
	if err != nil {
		t.Fatal(err)
	}
	want := capacity.DefaultSettings()
	want.Precision, want.Start, want.MaxSteps, want.MaxTime, want.StepDuration = 0.1, 2000, 7, 90*time.Second, 3
	if got.Settings != want || len(got.SLOs) != 1 || got.SLOs[0].Metric != "http/latency/99" {
		t.Errorf("section %+v, want %+v and one SLO", got, want)
	}
	for _, c := range []struct{ old, bad, msg string }{
		{"startRate: 2000", "startRate: fast", `s.yml:9: scenario "s": capacity: startRate "fast": want a number of at least 1`},
		{"startRate: 2000", "startRate: 0", `s.yml:9: scenario "s": capacity: startRate "0": want a number of at least 1`},
		{"startRate: 2000", "startRate: [1, 2]", `s.yml:9: scenario "s": capacity: startRate: want one value`},
		{"startRate: 2000", "start-rate: 5", `s.yml:9: scenario "s": capacity: unknown key "start-rate" (want slo, precision, startRate, maxSteps, maxTime, stepDuration, stepWarmup)`},
		{"maxTime: 90s", "maxTime: soon", `s.yml:11: scenario "s": capacity: maxTime "soon": want a duration such as 5m`},
		{"precision: 10%", "precision: 0.01", `s.yml:8: scenario "s": capacity: precision "0.01": want a percentage of at least 0.1 (5 or 5%)`},
	} {
		if _, err := load(strings.Replace(capacityYAML, c.old, c.bad, 1)); err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: error %v, want %q", c.bad, err, c.msg)
		}
	}
}
