package e2e

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/influx"
	"github.com/crankshaft/crankshaft/internal/influxtest"
)

// TestInfluxBackslashStatistic (issue 41, MEDIUM 8): a job whose statistics name a figure `lat\`
// made InfluxDB refuse the run's lines, and the run was spooled (and refused at every push); now
// the run is written, the figure under `lat`.
func TestInfluxBackslashStatistic(t *testing.T) {
	db := influxtest.Start(t)
	dir := t.TempDir()
	// printf, not echo: dash's echo reads the backslashes of the JSON.
	script := writeFile(t, dir, "stats.sh", `printf '%s\n' '#StartJobStatistics' \
'{"Metadata":[{"Source":"s","Name":"lat\\","Aggregate":"max","Reduce":"max","Format":"n2","ShortDescription":"l","LongDescription":"l"}],"Measurements":[{"Timestamp":"2026-01-01T00:00:00Z","Name":"lat\\","Value":4.25}]}' \
'#EndJobStatistics'
`)
	cfg := writeFile(t, dir, "stats.yml", `
jobs:
  stats:
    executable: /bin/sh
    arguments: `+script+`
    waitForExit: true
scenarios:
  s:
    load: {job: stats, endpoints: []}
`)
	r := crankEnv(t, time.Minute, []string{"CRANK_SPOOL_DIR=" + t.TempDir()}, "--config", cfg, "--scenario", "s",
		"--influx-url", db.URL, "--influx-bucket", db.DB+"/autogen")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	mustContain(t, "stderr", r.stderr, "wrote ")
	s, err := influx.Query(context.Background(), db.URL, "", db.DB, `SELECT "lat" FROM "crank_summary" WHERE "service" = 'load'`)
	if err != nil || len(s) != 1 || len(s[0].Values) != 1 || fmt.Sprint(s[0].Values[0][1:]) != "[4.25]" {
		t.Errorf("lat in InfluxDB: %+v (%v), want 4.25\n%s", s, err, r.stderr)
	}
}
