// Package boxrun holds fixtures for tests that judge measurements without running anything: jobs
// measured on a 2-core machine ("box") as busy as a test wants, a load's figures, and a scenario of
// an application and a load whose source is a repository the agent clones. It is a package of its
// own, not testutil, because it imports internal/api, whose tests import testutil.
package boxrun

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/measure"
	"github.com/crankshaft/crankshaft/internal/results"
)

// Job is a job that used cpu % of the 2-core machine "box", itself global % busy over the same
// three seconds (the diagnosis reads the difference as other work on the machine), with results res.
func Job(cpu, global float64, res map[string]float64) *results.JobResult {
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var tl []api.Measurement
	for i := range 3 {
		ts := at.Add(time.Duration(i) * time.Second)
		tl = append(tl, api.Measurement{Name: measure.CPU, Timestamp: ts, Value: cpu},
			api.Measurement{Name: measure.CPURaw, Timestamp: ts, Value: 2 * cpu},
			api.Measurement{Name: measure.CPUGlobal, Timestamp: ts, Value: global})
	}
	return &results.JobResult{Results: res, Measurements: [][]api.Measurement{tl},
		Environment: map[string]any{"hostname": "box", "cores": float64(2)}}
}

// Load is a load's figures: rps requests/s over 4 s, p99 12 ms; half of them failed if failed.
func Load(rps float64, failed bool) map[string]float64 {
	load := map[string]float64{measure.RPS: rps, measure.Requests: 4 * rps, measure.Latency99: 12}
	if failed {
		load[measure.BadResponses] = 2 * rps
	}
	return load
}

// Scenario writes a configuration whose scenario "app" runs service application (its source the
// repository, which the agent clones: each commit its source.branchOrCommit) and service load,
// which has the threshold http/latency/99 < 50; it returns the file's path.
func Scenario(t testing.TB, repository string) string {
	t.Helper()
	cfg := filepath.Join(t.TempDir(), "app.yml")
	yml := `
jobs:
  server:
    executable: /bin/sh
    arguments: '-c "exec sleep 120"'
    source:
      repository: ` + repository + `
  loader:
    executable: /bin/sh
    arguments: '-c "echo"'
    waitForExit: true
scenarios:
  app:
    application:
      job: server
    load:
      job: loader
      thresholds:
        http/latency/99: "< 50"
`
	if err := os.WriteFile(cfg, []byte(yml), 0o644); err != nil {
		t.Fatal(err)
	}
	return cfg
}

// Scripts is crank's root scripts for a configuration file to end with (AddScripts): a results:
// definition, script/cpu/peak, the peak of a service's benchmarks/cpu/raw samples (twice a Job's
// cpu); and an onResultsCreated script that counts, in the load's script/runs, the times the
// scripts ran on these results (1 when they ran once on each run's own results).
const Scripts = `
results:
  - name: script/cpu/peak
    measurement: benchmarks/cpu/raw
    aggregate: max
    reduce: max
onResultsCreated:
  - |
    var load = benchmarks.jobs.load.results;
    load["script/runs"] = (load["script/runs"] || 0) + 1;
`

// ScriptedScenario writes a configuration whose scenario "scripted" runs service application and
// service load (whose threshold is script/cpu/peak's, limit: "< 30"), ending with crank's root
// scripts (AddScripts: Scripts unless others are given); it returns the file's path.
func ScriptedScenario(t testing.TB, limit string, scripts ...string) string {
	t.Helper()
	cfg := filepath.Join(t.TempDir(), "scripted.yml")
	yml := `jobs:
  app: {executable: ./app}
  load: {executable: ./load, waitForExit: true}
scenarios:
  scripted:
    application: {job: app}
    load:
      job: load
      thresholds:
        script/cpu/peak: "` + limit + `"
`
	if err := os.WriteFile(cfg, []byte(yml), 0o644); err != nil {
		t.Fatal(err)
	}
	AddScripts(t, cfg, scripts...)
	return cfg
}

// AddScripts ends the configuration file cfg with Scripts, or with the root scripts given.
func AddScripts(t testing.TB, cfg string, scripts ...string) {
	t.Helper()
	text := Scripts
	if len(scripts) > 0 {
		text = strings.Join(scripts, "\n")
	}
	f, err := os.OpenFile(cfg, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.WriteString("\n" + text)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
}
