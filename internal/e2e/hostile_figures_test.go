package e2e

import (
	"encoding/json"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/measure"
)

// answerMeasurements makes a rewrite that answers every job's /measurements with ms (stamped
// now), its JSON edited by the old, new pairs of edits (JSON no encoder writes, such as 1e999),
// and lets the real agent answer the rest.
func answerMeasurements(ms func(now time.Time) api.Measurements, edits ...string) rewrite {
	return func(w http.ResponseWriter, r *http.Request) bool {
		if r.Method != http.MethodGet || !strings.HasSuffix(r.URL.Path, "/measurements") {
			return false
		}
		b, err := json.Marshal(ms(time.Now()))
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return true
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = strings.NewReplacer(edits...).WriteString(w, string(b))
		return true
	}
}

// TestHostileInfiniteFigureKeepsTheRun: an agent whose samples overflow when crank combines them
// (two 1e308 summed, requests and bad responses at the largest float64, so an error rate of
// Inf/Inf) lost the whole run: the JSON encoder refused +Inf, and neither --json nor the CSV was
// written (exit 1); a sample of 1e999 (JSON allows it) failed the answer's decoding, and the run. Now those figures are not measured, with why, and the rest is written
// in the JSON, the CSV and the tables (issue 41, MEDIUM 6).
func TestHostileInfiniteFigureKeepsTheRun(t *testing.T) {
	huge := func(now time.Time) api.Measurements {
		sum := func(name string) api.Metadata {
			return api.Metadata{Source: "hostile", Name: name, Aggregate: api.OpSum, Reduce: api.OpSum, Format: "n0"}
		}
		m := func(name string, v float64) api.Measurement {
			return api.Measurement{Name: name, Timestamp: now, Value: v}
		}
		return api.Measurements{
			Metadata: []api.Metadata{sum("hostile/huge"), sum(measure.Requests), sum(measure.BadResponses), sum("hostile/fine"), sum("hostile/beyond")},
			Measurements: []api.Measurement{m("hostile/huge", 1e308), m("hostile/huge", 1e308),
				m(measure.Requests, math.MaxFloat64), m(measure.Requests, math.MaxFloat64),
				m(measure.BadResponses, math.MaxFloat64), m(measure.BadResponses, math.MaxFloat64), m("hostile/fine", 42),
				m("hostile/beyond", 1.25e300)},
		}
	}
	// 1e999: a number JSON allows and a float64 cannot hold (the answer's decoding failed).
	url := hostileAgent(t, "hostile-token", answerMeasurements(huge, "1.25e+300", "1e999"))
	dir := t.TempDir()
	out, csvPath := filepath.Join(dir, "out.json"), filepath.Join(dir, "out.csv")
	r := crankEnv(t, time.Minute, []string{"CRANK_AGENT_TOKEN=hostile-token"},
		"--config", hostileConfig(t, url), "--scenario", "shell", "--profile", "hostile", "--json", out, "--csv", csvPath)
	if r.code != 0 {
		t.Fatalf("exit %d, want 0 (the run kept)\n%s", r.code, r.stderr)
	}
	var res struct {
		JobResults struct {
			Jobs map[string]struct {
				Results     map[string]any    `json:"results"`
				NotMeasured map[string]string `json:"notMeasured"`
			} `json:"jobs"`
		} `json:"jobResults"`
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("--json not written: %v\n%s", err, r.stderr)
	}
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatal(err)
	}
	load := res.JobResults.Jobs["load"]
	if load.Results["hostile/fine"] != 42.0 {
		t.Errorf("hostile/fine = %v, want 42 (the rest written)", load.Results["hostile/fine"])
	}
	for name, why := range map[string]string{
		"hostile/huge":    "+Inf, not a finite number: the agents' values (aggregate sum, reduce sum) overflow",
		measure.Requests:  "+Inf, not a finite number",
		measure.ErrorRate: "NaN, not a finite number: the agents' values (derived from other figures)",
		"hostile/beyond":  "+Inf, not a finite number: the agents' values (aggregate sum, reduce sum)",
	} {
		if !strings.HasPrefix(load.NotMeasured[name], why) {
			t.Errorf("notMeasured[%s] = %q, want it to begin %q", name, load.NotMeasured[name], why)
		}
		if _, has := load.Results[name]; has {
			t.Errorf("%s is still in the results: %v", name, load.Results[name])
		}
	}
	csv, err := os.ReadFile(csvPath)
	if err != nil {
		t.Fatalf("--csv not written: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(csv)), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], "load.hostile/fine") || !strings.Contains(lines[1], ",42,") {
		t.Errorf("CSV lacks the finite figure:\n%s", csv)
	}
	mustContain(t, "tables", r.stdout, "not measured: +Inf, not a finite number")
	mustContain(t, "warnings", r.stderr, "load: hostile/huge: not measured: +Inf")
}
