package runner

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/crankshaft/crankshaft/internal/controller"
	"github.com/crankshaft/crankshaft/internal/results"
	"github.com/crankshaft/crankshaft/internal/threshold"
)

// stepper is a Stepper whose every step measures jobs, or fails with err.
type stepper struct {
	jobs map[string]*results.JobResult
	err  error
}

func (s stepper) Step(context.Context, []controller.Service) (map[string]*results.JobResult, error) {
	return s.jobs, s.err
}

// TestStepJudgedAsARun: a step is judged by the run's judgement: its failed requests fail it as
// they fail a run (--max-error-rate), its thresholds are checked, its diagnosis made with why it
// was not probed; with NoScenarioThresholds the scenario's thresholds: are neither checked nor
// judged, only the command's. RunFailures leaves out the thresholds' count, which the checks say.
func TestStepJudgedAsARun(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "s.yml")
	if err := os.WriteFile(cfg, []byte(`jobs:
  app: {executable: ./app}
  load: {executable: ./load, waitForExit: true}
scenarios:
  s:
    app: {job: app}
    load:
      job: load
      thresholds:
        http/latency/p99: "< 5"
`), 0o644); err != nil {
		t.Fatal(err)
	}
	p99, _ := threshold.Parse("load:http/latency/99<1")
	plan := Plan{Source: Source{Configs: []string{cfg}, Scenario: "s"},
		Verdict: Verdict{Thresholds: []threshold.Threshold{p99}, MaxErrorRate: DefaultMaxErrorRate, NoScenarioThresholds: true}}
	p, err := Prepare(t.Context(), Env{}, plan)
	if err != nil {
		t.Fatalf("the scenario's thresholds were checked: %v", err)
	}
	jobs := loadResult(1000, 500, 0, 2).JobResults.Jobs
	res, err := p.Step(t.Context(), stepper{jobs: jobs})
	if err != nil {
		t.Fatal(err)
	}
	if res.ReturnCode != ExitFailed || len(res.Thresholds) != 1 || res.Thresholds[0].Pass || res.Thresholds[0].Value != 2 {
		t.Errorf("judged %d, thresholds %+v: want failed on its errors, p99 < 1 crossed and the only threshold", res.ReturnCode, res.Thresholds)
	}
	run := RunFailures(res)
	if len(run) != 1 || !strings.HasPrefix(run[0], "500 of 1,000 requests failed") || !slices.Contains(res.Failures, "1 of 1 thresholds failed") {
		t.Errorf("run failures %q of %q", run, res.Failures)
	}
	if len(res.JobResults.Diagnostics) == 0 || res.JobResults.Diagnostics[0].Kind != "error-bound" || res.Scenario != "s" || res.JobResults.Jobs["load"] == nil {
		t.Errorf("result %+v", res)
	}
	plan.Verdict.NoScenarioThresholds = false
	if _, err := Prepare(t.Context(), Env{}, plan); err == nil || !strings.Contains(err.Error(), "did you mean http/latency/99") {
		t.Errorf("the scenario's thresholds judged: %v, want its misspelt figure refused", err)
	}
	lost := errors.New("agent lost")
	if res, err := p.Step(t.Context(), stepper{err: lost}); res != nil || !errors.Is(err, lost) {
		t.Errorf("a failed step: %v, %v", res, err)
	}
}
