package dashcheck

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
)

// t0 is the first night's start.
var t0 = time.Date(2024, 5, 1, 2, 0, 0, 0, time.UTC)

// testConfig publishes to db of the influxd at url, spooling into the test's folder.
func testConfig(t *testing.T, url, db string) influx.Config {
	return influx.Config{URL: url, Bucket: db + "/autogen", SpoolDir: filepath.Join(t.TempDir(), "spool"),
		Timeout: 5 * time.Second}
}

// fillNightly writes three nights of plaintext runs on two machines (bench-x64, bench-arm64)
// in two variants (partitions 1 and 4), and a change point of one of those series, as the nightly
// job and the regressions command would.
func fillNightly(t *testing.T, url, db string) {
	t.Helper()
	cfg := testConfig(t, url, db)
	cfg.Tags = influx.Tags{Branch: "main", Commit: "abc123"}
	for night := range 3 {
		i := 0
		for _, arch := range []string{"x64", "arm64"} {
			for _, part := range []string{"1", "4"} {
				v := influxtest.Run{Arch: arch, Partitions: part, RPS: 100000}
				if arch == "arm64" {
					v.RPS = 80000
				}
				if part == "4" {
					v.RPS *= 1.5
				}
				v.Start = t0.Add(time.Duration(night)*24*time.Hour + time.Duration(i)*time.Hour)
				v.Session = fmt.Sprintf("%s-%s-p%s", v.Start.Format("20060102"), arch, part)
				v.RPS += float64(night) * 1000
				if sum, err := influx.Publish(context.Background(), cfg, v.Result(), nil); err != nil || sum.Err != nil {
					t.Fatalf("publish: %v %v", err, sum.Err)
				}
				i++
			}
		}
	}
	cp := influx.ChangePoint{Time: t0.Add(48 * time.Hour), Scenario: "plaintext", Profile: "local", Service: "load",
		Metric: "http/rps/mean", Arch: "x64", Machine: "bench-x64", Variant: "partitions=4", Branch: "main",
		Direction: "improvement", Before: 151000, After: 152000, Session: "20240503-x64-p4", Text: "http/rps/mean +1%"}
	if sum, err := influx.WriteChangePoints(context.Background(), cfg, []influx.ChangePoint{cp}); err != nil || sum.Err != nil || sum.Written != 1 {
		t.Fatalf("change point: %v %v, %d written", err, sum.Err, sum.Written)
	}
}

// nightlyQuery is the committed nightly dashboard's query of a panel, every variable at All.
func nightlyQuery(t *testing.T, title string) string {
	t.Helper()
	b, err := os.ReadFile("../../dashboards/crank-nightly.json")
	if err != nil {
		t.Fatal(err)
	}
	var d board
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatal(err)
	}
	for _, p := range d.Panels {
		if p.Title == title {
			q := p.Targets[0].Query
			for _, v := range seriesTagNames {
				q = strings.ReplaceAll(q, "$"+v+"$", ".*$")
			}
			return strings.ReplaceAll(q, "$timeFilter", "time > 0")
		}
	}
	t.Fatalf("no panel %q", title)
	return ""
}

var seriesTagNames = []string{"scenario", "profile", "machine", "arch", "variant", "branch"}

// TestDashboardQueriesReturnData: the committed dashboards pass the check on two machines x two
// variants x three nights, and the nightly requests/sec panel draws one line per (scenario,
// machine, variant), each with its three nights.
func TestDashboardQueriesReturnData(t *testing.T) {
	srv := influxtest.Start(t)
	fillNightly(t, srv.URL, srv.DB)
	if err := Check(context.Background(), srv.URL, srv.DB, "../../dashboards"); err != nil {
		t.Fatal(err)
	}
	s, err := influx.Query(context.Background(), srv.URL, "", srv.DB, nightlyQuery(t, "Requests/sec"))
	if err != nil {
		t.Fatal(err)
	}
	lines := map[string]int{}
	for _, x := range s {
		lines[x.Tags["scenario"]+" "+x.Tags["machine"]+" "+x.Tags["variant"]] = len(x.Values)
	}
	want := map[string]int{"plaintext bench-x64 partitions=1": 3, "plaintext bench-x64 partitions=4": 3,
		"plaintext bench-arm64 partitions=1": 3, "plaintext bench-arm64 partitions=4": 3}
	if fmt.Sprint(lines) != fmt.Sprint(want) {
		t.Errorf("nightly lines %v, want %v", lines, want)
	}
}

// TestDashboardsWithoutCounters: with an app that exposes no counters (no metrics endpoint)
// and a load tool that samples no rate, exactly the counter panels are empty, and there is no
// change point to annotate.
func TestDashboardsWithoutCounters(t *testing.T) {
	srv := influxtest.Start(t)
	for night := range 2 {
		r := influxtest.Run{Start: t0.Add(time.Duration(night) * 24 * time.Hour), Session: fmt.Sprint("bare", night), Arch: "x64",
			Partitions: "1", RPS: 5000, NoCounters: true}
		if _, err := influx.Publish(context.Background(), testConfig(t, srv.URL, srv.DB), r.Result(), nil); err != nil {
			t.Fatal(err)
		}
	}
	err := Check(context.Background(), srv.URL, srv.DB, "../../dashboards")
	if err == nil {
		t.Fatal("no error")
	}
	var empty []string
	for _, line := range strings.Split(err.Error(), "\n") {
		file, rest, _ := strings.Cut(line, ": ")
		what, _, _ := strings.Cut(rest, ": ")
		if !strings.Contains(rest, ": no data for ") && !strings.Contains(rest, ": no rows") {
			what += " (" + rest + ")"
		}
		empty = append(empty, file+" "+what)
	}
	want := []string{
		`crank-compare.json panel "Lock contention, A and B"`,
		`crank-compare.json panel "Requests/sec from run start, before and after"`,
		`crank-nightly.json annotation "Change points" (arch=$__all branch=$__all machine=$__all profile=$__all scenario=$__all variant=$__all)`,
		`crank-nightly.json panel "Lock contention"`, `crank-nightly.json panel "Exceptions/sec"`, `crank-nightly.json panel "GC pause"`,
		`crank-run.json panel "Requests/sec (per second)"`, `crank-run.json panel "Lock contention"`,
		`crank-run.json panel "Exceptions/sec"`, `crank-run.json panel "GC pause"`,
	}
	if strings.Join(empty, "\n") != strings.Join(want, "\n") {
		t.Errorf("empty:\n%s\nwant:\n%s\n(error: %v)", strings.Join(empty, "\n"), strings.Join(want, "\n"), err)
	}
}
