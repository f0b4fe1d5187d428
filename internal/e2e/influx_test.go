package e2e

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/influx"
	"github.com/crankshaft/crankshaft/internal/influxtest"
	"github.com/crankshaft/crankshaft/internal/results"
)

// influxCounts is count(*) of a measurement, every field's count, as text to compare.
func influxCounts(t *testing.T, url, db, measurement string) string {
	t.Helper()
	s, err := influx.Query(context.Background(), url, "", db, fmt.Sprintf(`SELECT count(*) FROM %q`, measurement))
	if err != nil {
		t.Fatalf("count %s in %s: %v", measurement, db, err)
	}
	if len(s) == 0 || len(s[0].Values) == 0 {
		return ""
	}
	return fmt.Sprint(s[0].Columns[1:], s[0].Values[0][1:])
}

func plaintextRun(t *testing.T, env []string, out string, extra ...string) runResult {
	t.Helper()
	_, ports := appPorts(t)
	args := append(append([]string{"--no-probe", "--config", "scenarios/plaintext.yml", "--scenario", "plaintext",
		"--variable", "duration=2", "--variable", "warmup=1", "--json", out}, ports...), extra...)
	return crankEnv(t, 3*time.Minute, env, args...)
}

// TestInfluxRunPointsMatchJSON: a real run pushed to a real influxd; InfluxQL finds the run's RPS
// equal to http/rps/mean in the JSON (TestNightlyPerMachineAndVariant checks the dashboards).
func TestInfluxRunPointsMatchJSON(t *testing.T) {
	db := influxtest.Start(t)
	out := filepath.Join(t.TempDir(), "out.json")
	env := []string{"CRANK_SPOOL_DIR=" + t.TempDir()}
	r := plaintextRun(t, env, out, "--influx-url", db.URL, "--influx-bucket", db.DB+"/autogen")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	mustContain(t, "stderr", r.stderr, "wrote ")
	want := readResult(t, out).JobResults.Jobs["load"].Results["http/rps/mean"]
	s, err := influx.Query(context.Background(), db.URL, "", db.DB,
		`SELECT "http/rps/mean" FROM "crank_summary" WHERE "service" = 'load'`)
	if err != nil || len(s) == 0 || len(s[0].Values) != 1 {
		t.Fatalf("query: %v %+v", err, s)
	}
	got, _ := strconv.ParseFloat(fmt.Sprint(s[0].Values[0][1]), 64)
	if want <= 0 || math.Abs(got-want) > 1e-6*want {
		t.Errorf("influx rps %v, json %v", got, want)
	}
}

// TestInfluxDownSpoolsThenPush: with influxd down the run succeeds and says it spooled; after
// influxd is back, `crank push` writes the run, with the same point counts as a direct write.
func TestInfluxDownSpoolsThenPush(t *testing.T) {
	db := influxtest.Start(t)
	env := []string{"CRANK_SPOOL_DIR=" + t.TempDir()}
	out := filepath.Join(t.TempDir(), "out.json")
	flags := []string{"--influx-url", db.URL, "--influx-bucket", db.DB + "/autogen"}
	db.Stop()
	r := plaintextRun(t, env, out, flags...)
	if r.code != 0 {
		t.Fatalf("run with influxd down: exit %d\n%s", r.code, r.stderr)
	}
	mustContain(t, "stderr", r.stderr, "spooled", "crank push")
	db.Restart()
	p := crankEnv(t, time.Minute, env, append([]string{"push"}, flags...)...)
	if p.code != 0 {
		t.Fatalf("crank push: exit %d\n%s%s", p.code, p.stdout, p.stderr)
	}
	again := crankEnv(t, time.Minute, env, append([]string{"push"}, flags...)...)
	mustContain(t, "second push", again.stdout+again.stderr, "nothing pending")

	// The reference: the same result written directly into another database.
	if err := db.Exec(context.Background(), "CREATE DATABASE ref"); err != nil {
		t.Fatal(err)
	}
	res, err := results.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := influx.Publish(context.Background(), influx.Config{URL: db.URL, Bucket: "ref/autogen",
		SpoolDir: t.TempDir()}, res, slog.New(slog.DiscardHandler))
	if err != nil || sum.Spooled != 0 || sum.Written == 0 {
		t.Fatalf("reference write: %v %+v", err, sum)
	}
	for _, m := range []string{influx.MeasurementSummary, influx.MeasurementTimeline, influx.MeasurementRun} {
		got, want := influxCounts(t, db.URL, db.DB, m), influxCounts(t, db.URL, "ref", m)
		if got == "" || got != want {
			t.Errorf("%s: pushed %s, direct %s", m, got, want)
		}
	}
}
