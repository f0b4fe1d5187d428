package influx

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/influxdata/influxdb-client-go/v2/api/write"

	"github.com/crankshaft/crankshaft/internal/influxtest"
)

// fillNightly writes three nights of plaintext runs on two machines (bench-x64, bench-arm64)
// in two variants (partitions 1 and 4), and a change point of one of those series, as the nightly
// job and the regressions command would.
func fillNightly(t *testing.T, url, db string) {
	t.Helper()
	cfg := testConfig(t, url, db)
	cfg.Tags = Tags{Branch: "main", Commit: "abc123"}
	for night := range 3 {
		i := 0
		for _, arch := range []string{"x64", "arm64"} {
			for _, part := range []string{"1", "4"} {
				v := run{arch: arch, partitions: part, rps: 100000}
				if arch == "arm64" {
					v.rps = 80000
				}
				if part == "4" {
					v.rps *= 1.5
				}
				v.start = t0.Add(time.Duration(night)*24*time.Hour + time.Duration(i)*time.Hour)
				v.session = fmt.Sprintf("%s-%s-p%s", v.start.Format("20060102"), arch, part)
				v.rps += float64(night) * 1000
				if sum, err := Publish(context.Background(), cfg, v.result(), nil); err != nil || sum.Err != nil {
					t.Fatalf("publish: %v %v", err, sum.Err)
				}
				i++
			}
		}
	}
	cp := ChangePoint{Time: t0.Add(48 * time.Hour), Scenario: "plaintext", Profile: "local", Service: "load",
		Metric: "http/rps/mean", Arch: "x64", Machine: "bench-x64", Variant: "partitions=4", Branch: "main",
		Direction: "improvement", Before: 151000, After: 152000, Session: "20240503-x64-p4", Text: "http/rps/mean +1%"}
	w, closeClient, _ := cfg.writer()
	defer closeClient()
	lines, _ := Lines([]*write.Point{cp.Point()})
	if n, err := writeLines(context.Background(), w, lines, time.Minute); err != nil || n != 1 {
		t.Fatal(n, err)
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
	if err := CheckDashboards(context.Background(), srv.URL, srv.DB, "../../dashboards"); err != nil {
		t.Fatal(err)
	}
	s := query(t, srv.URL, srv.DB, nightlyQuery(t, "Requests/sec"))
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
		r := run{start: t0.Add(time.Duration(night) * 24 * time.Hour), session: fmt.Sprint("bare", night), arch: "x64",
			partitions: "1", rps: 5000, noCounters: true}
		if _, err := Publish(context.Background(), testConfig(t, srv.URL, srv.DB), r.result(), nil); err != nil {
			t.Fatal(err)
		}
	}
	err := CheckDashboards(context.Background(), srv.URL, srv.DB, "../../dashboards")
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
