package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/crankshaft/crankshaft/internal/capacity"
	"github.com/crankshaft/crankshaft/internal/results"
	"github.com/crankshaft/crankshaft/internal/sweep"
)

// errorBoundLoad writes a load that reports crank's job statistics, half its requests failed, and
// returns its path.
func errorBoundLoad(t *testing.T, dir string) string {
	t.Helper()
	load := filepath.Join(dir, "load.sh")
	if err := os.WriteFile(load, []byte(`sleep 0.2; cat <<'X'
#StartJobStatistics
{"Measurements": [{"name": "http/requests", "value": 5000}, {"name": "http/rps/mean", "value": 2500},
 {"name": "http/latency/50", "value": 0.4}, {"name": "http/latency/99", "value": 1.5},
 {"name": "http/requests/badresponses", "value": 2500}, {"name": "http/requests/errors", "value": 0}]}
#EndJobStatistics
X
`), 0o644); err != nil {
		t.Fatal(err)
	}
	return load
}

// judgedAlike fails the test unless other was judged as the plain run r: the same threshold
// verdicts (the figures, measured twice, aside) and the same diagnosis.
func judgedAlike(t *testing.T, what string, r *results.Result, thresholds []results.ThresholdCheck, diagnosis []results.Diagnostic) {
	t.Helper()
	if len(r.Thresholds) != 2 || len(thresholds) != len(r.Thresholds) {
		t.Fatalf("thresholds: run %+v, %s %+v", r.Thresholds, what, thresholds)
	}
	for i := range r.Thresholds {
		a, b := r.Thresholds[i], thresholds[i]
		a.Value, b.Value = 0, 0 // measured twice: the figures differ, the verdicts do not
		if a != b {
			t.Errorf("threshold %d: run %+v, %s %+v", i, r.Thresholds[i], what, thresholds[i])
		}
	}
	kinds := func(ds []results.Diagnostic) []string {
		var out []string
		for _, d := range ds {
			out = append(out, d.Kind)
		}
		return out
	}
	if len(r.JobResults.Diagnostics) == 0 || !reflect.DeepEqual(kinds(r.JobResults.Diagnostics), kinds(diagnosis)) {
		b1, _ := json.Marshal(r.JobResults.Diagnostics)
		b2, _ := json.Marshal(diagnosis)
		t.Errorf("diagnosis: run %s, %s %s", b1, what, b2)
	}
}

// TestRunAndSweepJudgedAlike: a plain run and a one-variant sweep of the same scenario are judged
// by the same code (internal/runner): the same diagnosis and the same threshold verdicts.
func TestRunAndSweepJudgedAlike(t *testing.T) {
	dir := t.TempDir()
	cfg := shellConfig(t, errorBoundLoad(t, dir))
	common := []string{"--config", cfg, "--scenario", "shell", "--quiet", "--no-probe",
		"--threshold", "load:http/latency/99<5", "--threshold", "load:http/rps/mean>1e9"}
	plain := filepath.Join(dir, "run.json")
	_, stderr, code := run(t, append([]string{"--json", plain}, common...)...)
	if code != ExitFailed { // half the requests failed: error-bound
		t.Fatalf("run: exit %d, want %d\n%s", code, ExitFailed, stderr)
	}
	swept := filepath.Join(dir, "sweep.json")
	if _, stderr, code := run(t, append([]string{"sweep", "--json", swept, "--iterations", "1", "--matrix", "only=one"}, common...)...); code != ExitOK {
		t.Fatalf("sweep: exit %d\n%s", code, stderr)
	}
	r, err := results.ReadFile(plain)
	if err != nil {
		t.Fatal(err)
	}
	f, err := sweep.ReadFile(swept)
	if err != nil {
		t.Fatal(err)
	}
	v := f.Variants[0].Result
	judgedAlike(t, "sweep", r, v.Thresholds, v.JobResults.Diagnostics)
	if v.ReturnCode != r.ReturnCode {
		t.Errorf("return code: run %d, sweep %d", r.ReturnCode, v.ReturnCode)
	}
}

// TestRunAndCapacityStepJudgedAlike: a capacity step and a plain run of the same scenario at the
// same load (its rate, duration and warm-up as the step gives them) are judged by the same code
// (internal/runner): the same diagnosis, the same threshold verdicts (the step's SLOs are its
// thresholds), and the same failure on the failed requests (--max-error-rate), which fails the
// step as it fails the run.
func TestRunAndCapacityStepJudgedAlike(t *testing.T) {
	dir := t.TempDir()
	cfg := shellConfig(t, errorBoundLoad(t, dir)+" {{rate}}")
	common := []string{"--config", cfg, "--scenario", "shell", "--quiet", "--no-probe"}
	slos := []string{"load:http/latency/99<5", "load:http/rps/mean>1e9"}
	plain := filepath.Join(dir, "run.json")
	args := append([]string{"--json", plain, "--variable", "rate=100", "--variable", "duration=1", "--variable", "warmup=0"}, common...)
	for _, s := range slos {
		args = append(args, "--threshold", s)
	}
	if _, stderr, code := run(t, args...); code != ExitFailed { // half the requests failed: error-bound
		t.Fatalf("run: exit %d, want %d\n%s", code, ExitFailed, stderr)
	}
	stepped := filepath.Join(dir, "capacity.json")
	args = append([]string{"capacity", "--json", stepped, "--start-rate", "100", "--max-steps", "1", "--step-duration", "1", "--step-warmup", "0"}, common...)
	for _, s := range slos {
		args = append(args, "--slo", s)
	}
	if _, stderr, code := run(t, args...); code == ExitBadInput || code == ExitOK {
		t.Fatalf("capacity: exit %d, want a search without a capacity\n%s", code, stderr)
	}
	r, err := results.ReadFile(plain)
	if err != nil {
		t.Fatal(err)
	}
	step := onlyStep(t, stepped)
	for i := range step.Thresholds { // the step's are --slo's, the run's --threshold's
		if step.Thresholds[i].Source != "--slo" || i >= len(r.Thresholds) || r.Thresholds[i].Source != "--threshold" {
			t.Fatalf("sources: run %+v, step %+v", r.Thresholds, step.Thresholds)
		}
		step.Thresholds[i].Source = r.Thresholds[i].Source
	}
	judgedAlike(t, "capacity step", r, step.Thresholds, step.Diagnosis)
	// The run's failure on its failed requests is the step's, word for word, and fails the step.
	if len(r.Failures) != 2 || step.Pass || !slices.Contains(step.Failed, r.Failures[0]) {
		t.Errorf("failures: run %q, step %q (pass %v)", r.Failures, step.Failed, step.Pass)
	}
}

// onlyStep is the one step of the capacity search in the result file path.
func onlyStep(t *testing.T, path string) capacity.Step {
	t.Helper()
	c, err := results.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	searches, _, err := capacity.Read(c.Capacity)
	if err != nil || len(searches) != 1 || len(searches[0].Steps) != 1 {
		t.Fatalf("capacity: %v, %s", err, c.Capacity)
	}
	return searches[0].Steps[0]
}
