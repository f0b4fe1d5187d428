package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/influx"
	"github.com/crankshaft/crankshaft/internal/influxtest"
)

// TestCapacityRefusals: an SLO that cannot be met even at the lowest rate says so and exits 1 (3,
// cannot tell, when the machine was busy at the lowest rate); a
// misspelt SLO figure exits 2 naming it with the catalog's nearest, before anything starts; a load
// whose arguments take no rate (wrk) is refused naming the way out.
func TestCapacityRefusals(t *testing.T) {
	db := influxtest.Start(t)
	r := crankEnv(t, 2*time.Minute, []string{"CRANK_SPOOL_DIR=" + t.TempDir()}, append([]string{"capacity"}, diagArgs(t, "spin", "1ms", false, "--load.job", "builtin",
		"--slo", "load:http/latency/99<0.0001", "--start-rate", "40", "--step-duration", "1", "--step-warmup", "0",
		"--influx-url", db.URL, "--influx-bucket", db.DB+"/autogen")...)...)
	// On a machine other work keeps busy (machine-busy's rule), a failure at the lowest rate may be
	// the machine's: the search cannot tell (exit 3), saying so, with more steps measured again.
	busy := r.code == 3 && strings.Contains(r.stderr, "failed only while the machine was disturbed")
	if !busy && (r.code != 1 || !strings.Contains(r.stderr, "the service level objectives are not met even at the lowest rate (10 req/s)")) {
		t.Errorf("unmet SLO: exit %d\n%s", r.code, r.stderr)
	}
	// Even an unmet search is kept: its steps reach InfluxDB, none passing.
	s, err := influx.Query(context.Background(), db.URL, "", db.DB, `SELECT "asked", "pass", "disturbed" FROM "crank_capacity_step" GROUP BY "step"`)
	disturbed := 0
	for _, step := range s {
		if step.Values[0][3] == true {
			disturbed++
		}
	}
	if err != nil || len(s) < 6 || disturbed == 0 && len(s) != 6 {
		t.Errorf("crank_capacity_step: %v, %+v; want the 6 steps (40, 20 and 10 req/s, each failure measured again; more when one was disturbed)", err, s)
	}
	for _, step := range s {
		if step.Values[0][2] != false {
			t.Errorf("step %s: %v, want a failed step", step.Tags["step"], step.Values)
		}
	}
	r = crank(t, time.Minute, append([]string{"capacity"}, diagArgs(t, "spin", "1ms", false, "--load.job", "builtin",
		"--slo", "load:http/latency/p99<10")...)...)
	if r.code != 2 || !strings.Contains(r.stderr, "http/latency/p99 is not a figure crank knows; did you mean http/latency/99?") || strings.Contains(r.stderr, "starting job") {
		t.Errorf("misspelt SLO: exit %d\n%s", r.code, r.stderr)
	}
	r = crank(t, time.Minute, append([]string{"capacity"}, diagArgs(t, "spin", "1ms", false, "--slo", "load:http/latency/99<10")...)...)
	if r.code != 2 || !strings.Contains(r.stderr, `service "load" (job "wrk") does not take the rate variable`) {
		t.Errorf("wrk: exit %d\n%s", r.code, r.stderr)
	}
}
