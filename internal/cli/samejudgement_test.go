package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

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
