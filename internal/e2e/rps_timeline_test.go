package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/influx"
	"github.com/crankshaft/crankshaft/internal/influxtest"

	"github.com/crankshaft/crankshaft/internal/measure"
	"github.com/crankshaft/crankshaft/internal/results"
)

// TestAppRequestsPerSecondTimeline: a plaintext run's JSON holds, for the application, one
// runtime-counter/requests-per-second sample per second of the measured phase (from the app's
// app_requests_total, scraped by the agent), and in steady state (leaving out the first and last
// measured second, which straddle the load's start and end) each is within 10% of the load's
// mean requests/sec, the load sent at a fixed rate; the run dashboard's requests/sec panel, run against InfluxDB, has exactly
// those points in the measured phase. A busy machine can disturb a second: up to 4 runs.
func TestAppRequestsPerSecondTimeline(t *testing.T) {
	// A fixed rate (the built-in generator's schedule) keeps the steady state steady on a machine
	// shared with other work; as fast as possible, per-second throughput follows the neighbours.
	const duration, rate = 6, 20000
	db := influxtest.Start(t)
	env := []string{"CRANK_SPOOL_DIR=" + t.TempDir()}
	var last error
	for attempt := range 4 {
		out := filepath.Join(t.TempDir(), "out.json")
		_, ports := appPorts(t)
		r := crankEnv(t, 2*time.Minute, env, append([]string{"--config", "scenarios/plaintext.yml", "--scenario", "plaintext",
			"--load.job", "builtin", "--load.variables.rate", fmt.Sprint(rate),
			"--variable", fmt.Sprint("duration=", duration), "--variable", "warmup=1", "--json", out,
			"--influx-url", db.URL, "--influx-bucket", db.DB + "/autogen"}, ports...)...)
		if r.code != 0 {
			t.Fatalf("exit %d\n%s", r.code, r.stderr)
		}
		res := runResultFile(t, out)
		rps := res.JobResults.Jobs["load"].Results[measure.RPS]
		measured, warm := samples(res.JobResults.Jobs["application"], measure.RequestsPerSecond)
		if len(measured) < duration-1 || len(warm) == 0 {
			t.Fatalf("%d measured and %d warm-up %s samples, want >= %d and > 0", len(measured), len(warm),
				measure.RequestsPerSecond, duration-1)
		}
		if got := res.JobResults.Jobs["application"].Results[measure.RequestsPerSecond]; got <= 0 {
			t.Errorf("application %s result %v", measure.RequestsPerSecond, got)
		}
		if got := dashboardRPSPoints(t, db, res.Session); got != len(measured) {
			t.Errorf("run dashboard requests/sec: %d points in the measured phase, want %d (the JSON's samples)", got, len(measured))
		}
		last = nil
		for i, m := range measured[1 : len(measured)-1] {
			if math.Abs(m.Value-rps) > 0.1*rps {
				last = fmt.Errorf("second %d: %.0f req/s, load mean %.0f (samples %v)", i+2, m.Value, rps, values(measured))
				break
			}
		}
		if last == nil {
			t.Logf("attempt %d: load %.0f req/s, app samples %.0f", attempt+1, rps, values(measured))
			return
		}
		t.Logf("attempt %d: %v", attempt+1, last)
	}
	t.Error(last)
}

// runResultFile reads a result file with the results package (readResult reads a partial shape).
func runResultFile(t *testing.T, path string) *results.Result {
	t.Helper()
	res, err := results.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// dashboardRPSPoints runs the run dashboard's requests/sec panel (its server-side target) for a
// session, as Grafana substitutes it, and counts the points inside the session's measured phase.
func dashboardRPSPoints(t *testing.T, db *influxtest.Server, session string) int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(testEnv.root, "dashboards", "crank-run.json"))
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Panels []struct {
			Title   string
			Targets []struct{ Query string }
		}
	}
	if err := json.Unmarshal(b, &d); err != nil || len(d.Panels) == 0 || len(d.Panels[0].Targets) == 0 {
		t.Fatalf("crank-run.json: %v", err)
	}
	ctx := context.Background()
	ph, err := influx.Query(ctx, db.URL, "", db.DB, fmt.Sprintf(
		`SELECT "end_ms" FROM "crank_phase" WHERE "session" = '%s' AND "phase" = 'measured'`, session))
	if err != nil || len(ph) != 1 || len(ph[0].Values) != 1 {
		t.Fatalf("measured phase of %s: %v %+v", session, err, ph)
	}
	from, to := ph[0].Values[0][0].(float64), ph[0].Values[0][1].(float64)
	q := strings.NewReplacer("$session", session, "$timeFilter",
		fmt.Sprintf("time >= %.0fms AND time < %.0fms", from, to)).Replace(d.Panels[0].Targets[0].Query)
	s, err := influx.Query(ctx, db.URL, "", db.DB, q)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, x := range s {
		if x.Tags["service"] == "application" {
			n += len(x.Values)
		}
	}
	t.Logf("%s: %d points", d.Panels[0].Title, n)
	return n
}
