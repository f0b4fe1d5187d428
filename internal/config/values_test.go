package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/threshold"
)

const valuesYAML = `jobs:
  app:
    executable: ./app
    arguments: '--workers {{workers}}'
    variables: {workers: 4}
  load:
    executable: wrk
    waitForExit: true
    arguments: '-d {{duration}}s -c {{connections}}'
    variables: {duration: 15, warmup: 5, connections: 32}
    thresholds:
      http/requests/errors: "== 0"
  tool:
    executable: tool
    waitForExit: true
scenarios:
  s:
    app: {job: app}
    load:
      job: load
      thresholds:
        http/latency/99: ["< 5", ">= 0.001"]
    tool: {job: tool}
`

func resolveValues(t *testing.T, vars map[string]string) *Resolved {
	t.Helper()
	path := filepath.Join(t.TempDir(), "main.yml")
	if err := os.WriteFile(path, []byte(valuesYAML), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := Load(t.Context(), []string{path}, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := cfg.Resolve(Request{Scenario: "s", Variables: vars})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// A load job without a timeout gets warmup + duration + TimeoutMargin, or NoDurationTimeout.
func TestDefaultTimeout(t *testing.T) {
	r := resolveValues(t, map[string]string{"duration": "30"})
	got := map[string]time.Duration{}
	for _, s := range r.Services {
		got[s.Name] = s.Job.Timeout.Std()
	}
	// --variable applies to every job: tool gets the duration too.
	want := map[string]time.Duration{"app": 0, "load": 35*time.Second + TimeoutMargin, "tool": 30*time.Second + TimeoutMargin}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: timeout %s, want %s", k, got[k], v)
		}
	}
	if tool := resolveValues(t, nil).Services[2]; tool.Job.Timeout.Std() != NoDurationTimeout {
		t.Errorf("tool without duration: timeout %s, want %s", tool.Job.Timeout.Std(), NoDurationTimeout)
	}
}

func TestUnusedVariableWarning(t *testing.T) {
	r := resolveValues(t, map[string]string{"duraton": "3", "workers": "8", "zzz": "1"})
	want := []string{
		"--variable duraton: no job of the scenario uses duraton (did you mean duration?)",
		"--variable zzz: no job of the scenario uses zzz",
	}
	if strings.Join(r.Warnings, "\n") != strings.Join(want, "\n") {
		t.Errorf("warnings:\n%s\nwant:\n%s", strings.Join(r.Warnings, "\n"), strings.Join(want, "\n"))
	}
}

// Thresholds come from the job and the scenario (a list of conditions), attached to the service.
func TestScenarioThresholds(t *testing.T) {
	r := resolveValues(t, nil)
	var got []string
	for _, s := range r.Services {
		for _, th := range s.Thresholds {
			got = append(got, th.String())
		}
	}
	want := []string{"load: http/requests/errors == 0", "load: http/latency/99 < 5", "load: http/latency/99 >= 0.001"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("thresholds %q, want %q", got, want)
	}
	if _, _, err := threshold.ParseCondition("<5"); err != nil {
		t.Error(err)
	}
}
