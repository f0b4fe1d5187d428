package config

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

const sweepYAML = `
jobs:
  app: {executable: app}
scenarios:
  s:
    application: {job: app}
    sweep:
      iterations: 6
      baseline: dispatch=shared,cpuSet=0
      matrix:
        dispatch: [shared, partitioned]
        application.cpuSet: ['0', 0-1]
`

func TestScenarioSweep(t *testing.T) {
	dir := writeTree(t, map[string]string{"s.yml": sweepYAML})
	c, err := Load(t.Context(), []string{filepath.Join(dir, "s.yml")}, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := c.Sweep("s")
	want := &Sweep{Iterations: 6, Baseline: "dispatch=shared,cpuSet=0", Matrix: []SweepAxis{
		{Key: "dispatch", Values: []string{"shared", "partitioned"}}, {Key: "application.cpuSet", Values: []string{"0", "0-1"}}}}
	if err != nil || !reflect.DeepEqual(s, want) {
		t.Errorf("Sweep = %+v, %v", s, err)
	}
	r, err := c.Resolve(Request{Scenario: "s"})
	if err != nil || len(r.Services) != 1 || r.Services[0].Name != "application" {
		t.Errorf("the sweep section is not a service: %+v, %v", r, err)
	}
	matrix := "matrix:\n        dispatch: [shared, partitioned]\n        application.cpuSet: ['0', 0-1]"
	for bad, msg := range map[string]string{
		"iterations: 0":                   "iterations must be a whole number",
		"matrix: {dispatch: shared}":      `matrix "dispatch": want a list`,
		"repeat: 3":                       `unknown key "repeat"`,
		"matrix: {dispatch: [a, {x: 1}]}": "values must be non-empty scalars",
	} {
		old := "iterations: 6"
		if strings.HasPrefix(bad, "matrix") {
			old = matrix
		}
		yml := strings.Replace(sweepYAML, old, bad, 1)
		dir := writeTree(t, map[string]string{"s.yml": yml})
		_, err := Load(t.Context(), []string{filepath.Join(dir, "s.yml")}, LoadOptions{})
		if err == nil || !strings.Contains(err.Error(), msg) || !strings.Contains(err.Error(), "s.yml:") {
			t.Errorf("%s: error %v, want %q with the file and line", bad, err, msg)
		}
	}
}

// TestShippedPartitioningSweep: scenarios/partitioning.yml's sweep and the jobs a variant runs.
func TestShippedPartitioningSweep(t *testing.T) {
	c, err := Load(t.Context(), []string{"../../scenarios/partitioning.yml"}, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := c.Sweep("partitioning")
	if err != nil || s == nil || len(s.Matrix) != 2 || s.Matrix[1].Key != "application.cpuSet" || s.Iterations != 4 {
		t.Fatalf("sweep %+v, %v", s, err)
	}
	r, err := c.Resolve(Request{Scenario: "partitioning", Variables: map[string]string{"dispatch": "partitioned"},
		Overrides: []Override{{Service: "application", Path: "cpuSet", Value: "0-1"}}})
	if err != nil {
		t.Fatal(err)
	}
	app, load := r.Services[0].Job, r.Services[1].Job
	if !strings.Contains(app.Arguments, "--dispatch partitioned --partitions 64 --workers 64") || app.CpuSet != "0-1" ||
		load.Executable != "crank" || !strings.Contains(load.Arguments, " -p 128 ") {
		t.Errorf("application %q cpuSet %q, load %q", app.Arguments, app.CpuSet, load.Arguments)
	}
	if b, err := r.DryRun(); err != nil || !strings.Contains(string(b), `"cpuSet": "0-1"`) {
		t.Errorf("--dry-run does not show the cpuSet: %v\n%s", err, b)
	}
}
