package diagnose

import (
	"math"
	"strings"
	"testing"

	"github.com/crankshaft/crankshaft/internal/measure"
	"github.com/crankshaft/crankshaft/internal/results"
)

// splitRun is a server on its own 8-core machine and a load split over 2-core agents, one per
// raw CPU (% of one core) given, as the controller assembles it: one timeline per agent and the
// agents' environments.
func splitRun(server float64, gens ...float64) *results.Result {
	res := runOf(map[string]fakeJob{"application": {raw: []float64{server}, global: 15, cores: 8, host: "srv"}})
	load := &results.JobResult{Results: wrk(0, 0), Variables: wrkVars(1, 64, 1), Environment: map[string]any{}}
	var agents []any
	for i, g := range gens {
		host := "gen" + string(rune('1'+i))
		jr := fakeJob{raw: []float64{g, g}, global: g/2 + 2, cores: 2, host: host}.result()
		load.Measurements = append(load.Measurements, jr.Measurements[0])
		agents = append(agents, map[string]any{"hostname": host, "cores": float64(2), "endpoint": "http://" + host + ":5010"})
		if i == 0 {
			load.Environment = jr.Environment
		}
	}
	load.Environment["agents"] = agents
	res.JobResults.Jobs["load"] = load
	return res
}

// TestSplitLoadCPUAdded: the diagnosis counts a split load's CPU as its agents' added, as CPU per
// request does (main counted one generator's: the mean of their samples), and a load whose one
// generator is saturated is client-bound (main: underloaded, the others' idle CPU averaged in).
func TestSplitLoadCPUAdded(t *testing.T) {
	th := DefaultThresholds()
	res := splitRun(100, 95, 30, 30)
	r := newRun(res, th)
	load := r.loads[0]
	total, _ := results.TotalMeasuredMean(res.JobResults.Jobs["load"], measure.CPURaw)
	if math.Abs(load.used-total/100) > 1e-9 || len(r.machines) != 4 {
		t.Errorf("load uses %.2f cores on %d machines, want %.2f (CPU per request's) on 4", load.used, len(r.machines), total/100)
	}
	got := Diagnose(res, th)
	if len(got) != 1 || got[0].Kind != ClientBound ||
		!strings.Contains(got[0].Message, "load: the load generator's CPU is saturated (1.6 cores in all on 3 agents") {
		t.Fatalf("got %s", show(got))
	}
	if f := figure(t, got[0], "load", "cores used, every agent added"); f.Value != 1.55 {
		t.Errorf("load's cores %+v, want 1.55", f)
	}
	balanced := Diagnose(splitRun(100, 40, 40, 40), th)
	if len(balanced) != 1 || !strings.Contains(balanced[0].Message, "load: 1.2 cores in all on 3 agents (20 % of the machine (0.4 of 2 cores) each on average)") {
		t.Errorf("balanced: %s", show(balanced))
	}
}

// An agents list that does not match the timelines leaves the job whole.
func TestSplitAgentsMismatch(t *testing.T) {
	res := splitRun(100, 40, 40)
	res.JobResults.Jobs["load"].Environment["agents"] = []any{map[string]any{"hostname": "gen1"}}
	if j := newRun(res, DefaultThresholds()).loads[0]; j.split() {
		t.Errorf("parts %+v from a mismatched agents list", j.parts)
	}
}
