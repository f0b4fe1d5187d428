package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/influx"
	"github.com/crankshaft/crankshaft/internal/influxtest"
	"github.com/crankshaft/crankshaft/internal/measure"
	"github.com/crankshaft/crankshaft/internal/results/resultstest"
)

// TestAppRequestsPerSecondTimeline: a plaintext run's JSON holds, for the application, one
// runtime-counter/requests-per-second sample per second of the measured phase (from the app's
// app_requests_total, scraped by the agent), and in steady state (leaving out the first and last
// measured second, which straddle the load's start and end) they follow the load's mean
// requests/sec, the load sent at a fixed rate; the run dashboard's requests/sec panel, run
// against InfluxDB, has exactly those points in the measured phase.
//
// "Follow" is checked at a modest 5,000 req/s as the steady seconds' mean within a factor of 2 of
// the load's mean: both count the same requests, so a busy machine moves both, and one disturbed
// second of the 4 (read as 0, or as double while the schedule catches up) moves the mean by a
// quarter. A counter that is not the requests (or not per second) fails. Each second within 10 %
// at 20,000 req/s is TestAppRequestsPerSecondEachSecond (make measure).
func TestAppRequestsPerSecondTimeline(t *testing.T) {
	db := influxtest.Start(t)
	rps, steady := rpsTimelineRun(t, db, 5000)
	mean := 0.0
	for _, v := range steady {
		mean += v / float64(len(steady))
	}
	if ratio := mean / rps; ratio < 0.5 || ratio > 2 {
		t.Errorf("the application's steady seconds average %.0f req/s, the load's mean %.0f (%.2fx): want within a factor of 2 (samples %.0f)", mean, rps, ratio, steady)
	}
}

// rpsTimelineDuration is rpsTimelineRun's measured seconds.
const rpsTimelineDuration = 6

// rpsTimelineRun runs the plaintext scenario under the built-in generator at a fixed rate for
// rpsTimelineDuration measured seconds after 2 of warm-up (a requests/s sample is a rate between two
// scrapes a second apart: 1 s of warm-up sometimes held none, and the gate at 19727e3 failed on
// "0 warm-up samples"), pushing to db, and checks what does
// not depend on speed: the application's requests/s samples (one a second, warm-up marked), its
// result, and the run dashboard's panel having exactly the measured samples. It returns the
// load's mean requests/s and the application's steady-state samples (the measured ones less the
// first and last, which straddle the load's start and end).
func rpsTimelineRun(t *testing.T, db *influxtest.Server, rate int) (rps float64, steady []float64) {
	t.Helper()
	// A fixed rate (the built-in generator's schedule) keeps the steady state steady on a machine
	// shared with other work; as fast as possible, per-second throughput follows the neighbours.
	out := filepath.Join(t.TempDir(), "out.json")
	_, ports := appPorts(t)
	r := crankEnv(t, 2*time.Minute, []string{"CRANK_SPOOL_DIR=" + t.TempDir()}, append([]string{"--no-probe", "--config", "scenarios/plaintext.yml", "--scenario", "plaintext",
		"--load.job", "builtin", "--load.variables.rate", fmt.Sprint(rate),
		"--variable", fmt.Sprint("duration=", rpsTimelineDuration), "--variable", "warmup=2", "--json", out,
		"--influx-url", db.URL, "--influx-bucket", db.DB + "/autogen"}, ports...)...)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	res := resultstest.ReadResult(t, out)
	rps = res.JobResults.Jobs["load"].Results[measure.RPS]
	measured, warm := samples(res.JobResults.Jobs["application"], measure.RequestsPerSecond)
	if len(measured) < rpsTimelineDuration-1 || len(warm) == 0 {
		t.Fatalf("%d measured and %d warm-up %s samples, want >= %d and > 0", len(measured), len(warm),
			measure.RequestsPerSecond, rpsTimelineDuration-1)
	}
	if got := res.JobResults.Jobs["application"].Results[measure.RequestsPerSecond]; got <= 0 {
		t.Errorf("application %s result %v", measure.RequestsPerSecond, got)
	}
	if got := dashboardRPSPoints(t, db, res.Session); got != len(measured) {
		t.Errorf("run dashboard requests/sec: %d points in the measured phase, want %d (the JSON's samples)", got, len(measured))
	}
	t.Logf("load %.0f req/s, app samples %.0f", rps, values(measured))
	return rps, values(measured[1 : len(measured)-1])
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
