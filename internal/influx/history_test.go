package influx

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/influxtest"
	"github.com/crankshaft/crankshaft/internal/measure"
)

// publishNights writes n nights of plaintext runs on x64, one a day, RPS 1000 + night.
func publishNights(t *testing.T, cfg Config, n int) {
	t.Helper()
	cfg.Tags = Tags{Branch: "main", Commit: "c0ffee"}
	for night := range n {
		r := influxtest.Run{Start: t0.Add(time.Duration(night) * 24 * time.Hour), Session: fmt.Sprintf("n%02d", night),
			Arch: "x64", Partitions: "1", RPS: 1000 + float64(night), Seconds: 1}
		if sum, err := Publish(context.Background(), cfg, r.Result(), nil); err != nil || sum.Err != nil {
			t.Fatalf("publish night %d: %v %v", night, err, sum.Err)
		}
	}
}

func TestReadSummaries(t *testing.T) {
	srv := influxtest.Start(t)
	cfg := testConfig(t, srv.URL, srv.DB)
	publishNights(t, cfg, 5)
	ctx := context.Background()

	fields, err := SummaryFields(ctx, cfg)
	if err != nil || !strings.Contains(strings.Join(fields, " "), measure.RPS+" ") || len(fields) != 16 {
		t.Fatalf("fields %q (%v), want the 16 result names of both services", fields, err)
	}
	rows, truncated, err := ReadSummaries(ctx, cfg, SummaryFilter{Fields: []string{measure.RPS}, pageRows: 2})
	if err != nil || truncated || len(rows) != 5 {
		t.Fatalf("%d rows, truncated %v, err %v; want the 5 load points", len(rows), truncated, err)
	}
	for i, r := range rows {
		want := fmt.Sprintf("%v map[%s:%g] n%02d x64 bench-x64 linux local plaintext load main c0ffee",
			t0.Add(time.Duration(i)*24*time.Hour), measure.RPS, 1000+float64(i), i)
		got := fmt.Sprintf("%v %v %s %s %s %s %s %s %s %s %s", r.Time, r.Values, r.Tags["session"], r.Tags["arch"],
			r.Tags["machine"], r.Tags["os"], r.Tags["profile"], r.Tags["scenario"], r.Tags["service"], r.Tags["branch"], r.Tags["commit"])
		if got != want {
			t.Errorf("row %d:\n got %s\nwant %s", i, got, want)
		}
	}
	// Both services report the CPU; the most recent 3 points of 10 are kept.
	rows, truncated, err = ReadSummaries(ctx, cfg, SummaryFilter{Fields: []string{measure.CPU}, MaxRows: 3, pageRows: 2})
	if err != nil || !truncated || len(rows) != 3 || !rows[0].Time.Equal(t0.Add(3*24*time.Hour)) ||
		!rows[2].Time.Equal(t0.Add(4*24*time.Hour)) {
		t.Errorf("MaxRows 3: %+v truncated %v err %v", rows, truncated, err)
	}
}

func TestReadSummariesFilters(t *testing.T) {
	srv := influxtest.Start(t)
	cfg := testConfig(t, srv.URL, srv.DB)
	publishNights(t, cfg, 4)
	ctx := context.Background()
	count := func(f SummaryFilter) int {
		t.Helper()
		f.Fields = []string{measure.RPS}
		rows, _, err := ReadSummaries(ctx, cfg, f)
		if err != nil {
			t.Fatal(err)
		}
		return len(rows)
	}
	cases := []struct {
		name string
		f    SummaryFilter
		want int
	}{
		{"all", SummaryFilter{}, 4},
		{"since", SummaryFilter{Since: t0.Add(48 * time.Hour)}, 2},
		{"scenario", SummaryFilter{Scenario: "plaintext", Profile: "local"}, 4},
		{"other scenario", SummaryFilter{Scenario: "json"}, 0},
		{"quote in a value", SummaryFilter{Profile: `lo'cal\`}, 0},
	}
	for _, c := range cases {
		if got := count(c.f); got != c.want {
			t.Errorf("%s: %d rows, want %d", c.name, got, c.want)
		}
	}
	if _, _, err := ReadSummaries(ctx, cfg, SummaryFilter{}); err == nil || !strings.Contains(err.Error(), "no field selected") {
		t.Errorf("no fields: err %v", err)
	}
	cfg.Bucket = "crank/nope"
	if _, _, err := ReadSummaries(ctx, cfg, SummaryFilter{Fields: []string{measure.RPS}}); err == nil ||
		!strings.Contains(err.Error(), "nope") {
		t.Errorf("unknown retention policy: err %v", err)
	}
}

func TestSummaryQueryText(t *testing.T) {
	cfg := Config{Bucket: "crank"}
	q := summaryQuery(cfg, SummaryFilter{Fields: []string{`a"b`}, Scenario: "it's", Since: t0})
	want := `SELECT "a\"b"::field, "scenario"::tag, "profile"::tag, "service"::tag, "arch"::tag, "os"::tag, ` +
		`"machine"::tag, "variant"::tag, "session"::tag, "branch"::tag, "commit"::tag FROM "crank".."crank_summary" ` +
		`WHERE time >= '2024-05-01T02:00:00Z' AND "scenario" = 'it\'s'`
	if q != want {
		t.Errorf("query\n got %s\nwant %s", q, want)
	}
}
