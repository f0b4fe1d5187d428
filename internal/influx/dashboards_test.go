package influx

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/influxdata/influxdb-client-go/v2/api/write"

	"github.com/crankshaft/crankshaft/internal/influxtest"
)

// fillNightly writes three nights of plaintext runs on x64 (partitions 1) and arm64 (partitions
// 4), and a change point, as the nightly job and the regressions command would.
func fillNightly(t *testing.T, url, db string) {
	t.Helper()
	cfg := testConfig(t, url, db)
	cfg.Tags = Tags{Branch: "main", Commit: "abc123"}
	for night := range 3 {
		for i, v := range []run{{arch: "x64", partitions: "1", rps: 100000}, {arch: "arm64", partitions: "4", rps: 80000}} {
			v.start = t0.Add(time.Duration(night)*24*time.Hour + time.Duration(i)*time.Hour)
			v.session = v.start.Format("20060102") + "-" + v.arch
			v.rps += float64(night) * 1000
			if sum, err := Publish(context.Background(), cfg, v.result(), nil); err != nil || sum.Err != nil {
				t.Fatalf("publish: %v %v", err, sum.Err)
			}
		}
	}
	cp := ChangePoint{Time: t0.Add(48 * time.Hour), Scenario: "plaintext", Profile: "local", Service: "load",
		Metric: "http/rps/mean", Arch: "x64", Direction: "improvement", Before: 101000, After: 102000,
		Session: "20240503-x64", Text: "http/rps/mean +1%"}
	w, closeClient, _ := cfg.writer()
	defer closeClient()
	lines, _ := Lines([]*write.Point{cp.Point()})
	if n, err := writeLines(context.Background(), w, lines, time.Minute); err != nil || n != 1 {
		t.Fatal(n, err)
	}
}

func TestDashboardQueriesReturnData(t *testing.T) {
	srv := influxtest.Start(t)
	fillNightly(t, srv.URL, srv.DB)
	if err := CheckDashboards(context.Background(), srv.URL, srv.DB, "../../dashboards"); err != nil {
		t.Fatal(err)
	}
	// The change point annotation finds the change point.
	s := query(t, srv.URL, srv.DB, `SELECT "text", "metric", "direction", "change_pct" FROM "crank_changepoint" WHERE "scenario" =~ /^plaintext$/`)
	if len(s) != 1 || len(s[0].Values) != 1 || s[0].Values[0][1] != "http/rps/mean +1%" {
		t.Errorf("change points: %+v", s)
	}
}

func TestCheckDashboardsReportsEmptyPanels(t *testing.T) {
	srv := influxtest.Start(t)
	fillNightly(t, srv.URL, srv.DB)
	dir := t.TempDir()
	board := `{"title": "t", "templating": {"list": [{"name": "scenario", "type": "query", "multi": true,
	  "query": "SHOW TAG VALUES FROM crank_summary WITH KEY = \"scenario\""}]},
	  "panels": [
	    {"title": "ok", "targets": [{"refId": "A", "rawQuery": true, "query": "SELECT \"http/rps/mean\" FROM crank_summary WHERE scenario =~ /^$scenario$/ AND $timeFilter"}]},
	    {"title": "missing field", "targets": [{"refId": "A", "rawQuery": true, "query": "SELECT \"nope\" FROM crank_summary WHERE $timeFilter"}]},
	    {"title": "bad query", "targets": [{"refId": "A", "rawQuery": true, "query": "SELEC 1"}]},
	    {"title": "builder", "targets": [{"refId": "B", "measurement": "crank_summary"}]}]}`
	os.WriteFile(filepath.Join(dir, "t.json"), []byte(board), 0o644)
	err := CheckDashboards(context.Background(), srv.URL, srv.DB, dir)
	if err == nil {
		t.Fatal("no error")
	}
	msg := err.Error()
	for _, want := range []string{`panel "missing field": no data`, `panel "bad query": query "SELEC 1"`, `panel "builder": target B: not a raw InfluxQL query`} {
		if !strings.Contains(msg, want) {
			t.Errorf("error lacks %q:\n%s", want, msg)
		}
	}
	if strings.Contains(msg, `"ok"`) || strings.Count(msg, "\n") != 2 {
		t.Errorf("error should name exactly the 3 bad panels:\n%s", msg)
	}
}

// TestDashboardsWithoutCounters: with an app that exposes no counters (no metrics endpoint),
// only the lock contention and exceptions panels are empty; the run timeline's requests/sec
// falls back to the run's mean.
func TestDashboardsWithoutCounters(t *testing.T) {
	srv := influxtest.Start(t)
	r := run{start: t0, session: "bare", arch: "x64", partitions: "1", rps: 5000, noCounters: true}
	if _, err := Publish(context.Background(), testConfig(t, srv.URL, srv.DB), r.result(), nil); err != nil {
		t.Fatal(err)
	}
	err := CheckDashboards(context.Background(), srv.URL, srv.DB, "../../dashboards")
	if err == nil {
		t.Fatal("no error")
	}
	var empty []string
	for _, line := range strings.Split(err.Error(), "\n") {
		file, rest, _ := strings.Cut(line, ": panel ")
		title, _, _ := strings.Cut(rest, ": no data")
		empty = append(empty, file+" "+title)
	}
	want := []string{
		`crank-compare.json "Lock contention by variant"`, `crank-compare.json "Exceptions/sec by variant"`,
		`crank-nightly.json "Lock contention"`, `crank-nightly.json "Exceptions/sec"`,
		`crank-run.json "Lock contention"`, `crank-run.json "Exceptions/sec"`,
	}
	if strings.Join(empty, "\n") != strings.Join(want, "\n") {
		t.Errorf("empty panels:\n%s\nwant:\n%s\n(error: %v)", strings.Join(empty, "\n"), strings.Join(want, "\n"), err)
	}
}
