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

// TestRunAndSweepJudgedAlike: a plain run and a one-variant sweep of the same scenario are judged
// by the same code (internal/runner): the same diagnosis and the same threshold verdicts.
func TestRunAndSweepJudgedAlike(t *testing.T) {
	dir := t.TempDir()
	load := filepath.Join(dir, "load.sh") // a load that reports crank's job statistics
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
	cfg := shellConfig(t, load)
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
	if len(r.Thresholds) != 2 || len(v.Thresholds) != len(r.Thresholds) {
		t.Fatalf("thresholds: run %+v, sweep %+v", r.Thresholds, v.Thresholds)
	}
	for i := range r.Thresholds {
		a, b := r.Thresholds[i], v.Thresholds[i]
		a.Value, b.Value = 0, 0 // measured twice: the figures differ, the verdicts do not
		if a != b {
			t.Errorf("threshold %d: run %+v, sweep %+v", i, r.Thresholds[i], v.Thresholds[i])
		}
	}
	if v.ReturnCode != r.ReturnCode {
		t.Errorf("return code: run %d, sweep %d", r.ReturnCode, v.ReturnCode)
	}
	kinds := func(ds []results.Diagnostic) []string {
		var out []string
		for _, d := range ds {
			out = append(out, d.Kind)
		}
		return out
	}
	if len(r.JobResults.Diagnostics) == 0 || !reflect.DeepEqual(kinds(r.JobResults.Diagnostics), kinds(v.JobResults.Diagnostics)) {
		b1, _ := json.Marshal(r.JobResults.Diagnostics)
		b2, _ := json.Marshal(v.JobResults.Diagnostics)
		t.Errorf("diagnosis: run %s, sweep %s", b1, b2)
	}
}

// TestRunAndCapacityStepJudgedAlike: a capacity step and a plain run of the same scenario at the
// same load (its rate, duration and warm-up as the step gives them) are judged by the same code
// (internal/runner): the same diagnosis, the same threshold verdicts (the step's SLOs are its
// thresholds), and the same failure on the failed requests (--max-error-rate), which fails the
// step as it fails the run.
func TestRunAndCapacityStepJudgedAlike(t *testing.T) {
	dir := t.TempDir()
	load := filepath.Join(dir, "load.sh") // a load that reports crank's job statistics, whatever its rate
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
	cfg := shellConfig(t, load+" {{rate}}")
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
	c, err := results.ReadFile(stepped)
	if err != nil {
		t.Fatal(err)
	}
	searches, _, err := capacity.Read(c.Capacity)
	if err != nil || len(searches[0].Steps) != 1 {
		t.Fatalf("capacity: %v, %s", err, c.Capacity)
	}
	step := searches[0].Steps[0]
	if len(r.Thresholds) != 2 || len(step.Thresholds) != len(r.Thresholds) {
		t.Fatalf("thresholds: run %+v, step %+v", r.Thresholds, step.Thresholds)
	}
	for i := range r.Thresholds {
		a, b := r.Thresholds[i], step.Thresholds[i]
		a.Value, b.Value = 0, 0     // measured twice: the figures differ, the verdicts do not
		a.Source, b.Source = "", "" // --threshold and --slo
		if a != b {
			t.Errorf("threshold %d: run %+v, step %+v", i, r.Thresholds[i], step.Thresholds[i])
		}
	}
	kinds := func(ds []results.Diagnostic) []string {
		var out []string
		for _, d := range ds {
			out = append(out, d.Kind)
		}
		return out
	}
	if len(r.JobResults.Diagnostics) == 0 || !reflect.DeepEqual(kinds(r.JobResults.Diagnostics), kinds(step.Diagnosis)) {
		b1, _ := json.Marshal(r.JobResults.Diagnostics)
		b2, _ := json.Marshal(step.Diagnosis)
		t.Errorf("diagnosis: run %s, step %s", b1, b2)
	}
	// The run's failure on its failed requests is the step's, word for word, and fails the step.
	if len(r.Failures) != 2 || step.Pass || !slices.Contains(step.Failed, r.Failures[0]) {
		t.Errorf("failures: run %q, step %q (pass %v)", r.Failures, step.Failed, step.Pass)
	}
}
