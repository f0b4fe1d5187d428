package influx

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/influxtest"
)

func testConfig(t *testing.T, url, db string) Config {
	return Config{URL: url, Bucket: db + "/autogen", SpoolDir: filepath.Join(t.TempDir(), "spool"),
		Timeout: 5 * time.Second}
}

// query runs q and fails the test on error.
func query(t *testing.T, url, db, q string) []Series {
	t.Helper()
	s, err := Query(context.Background(), url, "", db, q)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// scalar returns the first row's column col of a one-series answer.
func scalar(t *testing.T, url, db, q, col string) any {
	t.Helper()
	s := query(t, url, db, q)
	if len(s) != 1 || len(s[0].Values) == 0 || s[0].Column(col) == nil {
		t.Fatalf("%s: got %+v, want one series with column %s", q, s, col)
	}
	return s[0].Column(col)[0]
}

// counts is every measurement's count(*) by series, as text, to compare databases.
func counts(t *testing.T, url, db string) string {
	t.Helper()
	var b strings.Builder
	for _, m := range []string{MeasurementSummary, MeasurementTimeline, MeasurementRun} {
		for _, s := range query(t, url, db, fmt.Sprintf("SELECT count(*) FROM %q GROUP BY *", m)) {
			fmt.Fprintf(&b, "%s %v %v %v\n", s.Name, s.Tags, s.Columns, s.Values[0][1:])
		}
	}
	return b.String()
}

func TestPublishWritesExactValues(t *testing.T) {
	srv := influxtest.Start(t)
	cfg := testConfig(t, srv.URL, srv.DB)
	res := influxtest.Run{Start: t0, Session: "s1", Arch: "x64", Partitions: "4", RPS: 123456.5}.Result()
	sum, err := Publish(context.Background(), cfg, res, nil)
	if err != nil || sum.Err != nil {
		t.Fatalf("Publish: %v, %v", err, sum.Err)
	}
	// 2 summaries + 20 app samples + 20 load samples (1 ms apart from the app's) + 1 run.
	if sum.Written != 47 || sum.Spooled != 0 || sum.PendingRuns != 0 {
		t.Fatalf("summary %+v, want 47 written, nothing spooled", sum)
	}
	if want := "wrote 47 points to crank/autogen at " + srv.URL; sum.String() != want {
		t.Errorf("String() = %q, want %q", sum.String(), want)
	}
	got := query(t, srv.URL, srv.DB, `SELECT "http/rps/mean", "http/latency/99" FROM crank_summary WHERE session = 's1' AND service = 'load'`)
	if len(got) != 1 || fmt.Sprint(got[0].Values) != "[[1.7145288e+12 123456.5 4.75]]" {
		t.Errorf("summary = %+v", got)
	}
	if v := scalar(t, srv.URL, srv.DB, `SELECT count("benchmarks/cpu") FROM crank_timeline WHERE service = 'application' AND phase = 'measured'`, "count"); v != 15.0 {
		t.Errorf("measured CPU samples = %v, want 15", v)
	}
	if v := scalar(t, srv.URL, srv.DB, `SELECT sum("runtime-counter/lock-contention") FROM crank_timeline WHERE phase = 'warmup'`, "sum"); v != 1.0+1.1+1.2+1.3+1.4 {
		t.Errorf("warm-up lock contention sum = %v", v)
	}
	if v := scalar(t, srv.URL, srv.DB, `SELECT "text" FROM crank_run`, "text"); v != "plaintext [local] session s1: synthetic x64; load 123456 req/s" {
		t.Errorf("run text = %v", v)
	}
	tags := query(t, srv.URL, srv.DB, `SHOW TAG VALUES FROM crank_summary WITH KEY IN ("arch", "cores", "machine", "partitions", "profile")`)
	if len(tags) != 1 || fmt.Sprint(tags[0].Values) != "[[arch x64] [cores 4] [machine bench-x64] [partitions 4] [profile local]]" {
		t.Errorf("tags = %+v", tags)
	}
}

func TestPublishTwiceIsIdempotent(t *testing.T) {
	srv := influxtest.Start(t)
	cfg := testConfig(t, srv.URL, srv.DB)
	res := influxtest.Run{Start: t0, Session: "s1", Arch: "x64", Partitions: "1", RPS: 1000}.Result()
	if _, err := Publish(context.Background(), cfg, res, nil); err != nil {
		t.Fatal(err)
	}
	once := counts(t, srv.URL, srv.DB)
	series := query(t, srv.URL, srv.DB, "SHOW SERIES")
	sum, err := Publish(context.Background(), cfg, res, nil)
	if err != nil || sum.Written != 47 {
		t.Fatalf("second Publish: %v, %+v", err, sum)
	}
	if twice := counts(t, srv.URL, srv.DB); twice != once {
		t.Errorf("counts after a second publish:\n%s\nwant:\n%s", twice, once)
	}
	if again := query(t, srv.URL, srv.DB, "SHOW SERIES"); len(again[0].Values) != len(series[0].Values) {
		t.Errorf("series %d after a second publish, want %d", len(again[0].Values), len(series[0].Values))
	}
	if !strings.Contains(once, "phase:measured profile:local scenario:plaintext service:application session:s1 variant:partitions=1] [time count_benchmarks/cpu count_benchmarks/cpu/steal count_benchmarks/working-set count_elapsed_s count_runtime-counter/exception-count count_runtime-counter/gc-pause count_runtime-counter/lock-contention count_runtime-counter/requests-per-second] [15 15 15 15 15 15 15 15]") {
		t.Errorf("counts do not show the timeline: %s", once)
	}
}

// TestSpoolWhileDownThenPush: runs published while influxd is down are spooled; once it is up,
// push writes them, and the database then holds exactly what a run that never failed holds.
func TestSpoolWhileDownThenPush(t *testing.T) {
	srv := influxtest.Start(t)
	ctx := context.Background()
	if err := srv.Exec(ctx, "CREATE DATABASE ref"); err != nil {
		t.Fatal(err)
	}
	runs := []influxtest.Run{
		{Start: t0, Session: "a", Arch: "x64", Partitions: "1", RPS: 1000},
		{Start: t0.Add(time.Hour), Session: "b", Arch: "arm64", Partitions: "4", RPS: 2000},
	}
	ref := testConfig(t, srv.URL, "ref")
	for _, r := range runs {
		if sum, err := Publish(ctx, ref, r.Result(), nil); err != nil || sum.Written == 0 {
			t.Fatalf("reference publish: %v %+v", err, sum)
		}
	}
	srv.Stop()
	cfg := testConfig(t, srv.URL, srv.DB)
	for i, r := range runs {
		sum, err := Publish(ctx, cfg, r.Result(), nil)
		if err != nil || sum.Err == nil || sum.Written != 0 || sum.Spooled != 47 || sum.PendingRuns != i+1 {
			t.Fatalf("publish while down: %v, %+v", err, sum)
		}
		if !strings.Contains(sum.String(), "run `crank push`") {
			t.Errorf("summary does not tell how to retry: %s", sum)
		}
	}
	srv.Restart()
	var out, errOut strings.Builder
	env := map[string]string{"CRANK_INFLUX_URL": srv.URL, "CRANK_INFLUX_BUCKET": srv.DB + "/autogen"}
	code := Main(ctx, []string{"--spool", cfg.SpoolDir}, func(k string) string { return env[k] }, &out, &errOut)
	if code != ExitOK || out.String() != "wrote 2 spooled runs (94 points)\n" {
		t.Fatalf("push: exit %d, stdout %q, stderr %q", code, out.String(), errOut.String())
	}
	if left, _ := os.ReadDir(cfg.SpoolDir); len(left) != 0 {
		t.Errorf("spool not empty after push: %v", left)
	}
	if got, want := counts(t, srv.URL, srv.DB), counts(t, srv.URL, "ref"); got != want {
		t.Errorf("after push:\n%s\nwant (never failed):\n%s", got, want)
	}
}

// TestRejectedSpoolFileDoesNotBlock: a spooled file InfluxDB refuses (400) stays pending and is
// reported, and the new run is still written.
func TestRejectedSpoolFileDoesNotBlock(t *testing.T) {
	srv := influxtest.Start(t)
	cfg := testConfig(t, srv.URL, srv.DB)
	bad, err := Spool{cfg.SpoolDir}.Save("20000101T000000.000000000Z-bad-00000000.lp", nil, []string{"not line protocol"})
	if err != nil {
		t.Fatal(err)
	}
	sum, err := Publish(context.Background(), cfg, influxtest.Run{Start: t0, Session: "s", Arch: "x64", Partitions: "1", RPS: 1}.Result(), nil)
	if err != nil || sum.Written != 47 || sum.FlushErr == nil || sum.PendingRuns != 1 || sum.PendingPoints != 1 {
		t.Fatalf("Publish: %v, %+v", err, sum)
	}
	if !strings.Contains(sum.FlushErr.Error(), "status 400") {
		t.Errorf("FlushErr = %v, want the 400", sum.FlushErr)
	}
	if _, err := os.Stat(bad); err != nil {
		t.Errorf("rejected spool file removed: %v", err)
	}
}
