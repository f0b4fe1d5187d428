package influx

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/influxdata/influxdb-client-go/v2/api/write"

	"github.com/crankshaft/crankshaft/internal/influxtest"
)

func testChangePoints() []ChangePoint {
	return []ChangePoint{
		{Time: t0.Add(40*24*time.Hour + 123456789), Scenario: "plaintext", Profile: "local", Service: "load",
			Metric: "http/rps/mean", Arch: "x64", OS: "linux", Machine: "bench-x64", Direction: ChangeRegression,
			Before: 120000, After: 110400, Session: "n40", Commit: "c0ffee", Text: "load http/rps/mean -8.00%"},
		{Time: t0.Add(20 * 24 * time.Hour), Scenario: "plaintext", Profile: "local", Service: "application",
			Metric: "benchmarks/cpu", Direction: ChangeImprovement, Before: 80, After: 60, Text: "cpu -25%"},
	}
}

func TestChangePointLine(t *testing.T) {
	lines, err := Lines([]*write.Point{testChangePoints()[0].Point(), (ChangePoint{Time: t0, Service: "s", Metric: "m"}).Point()})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`crank_changepoint,arch=x64,direction=regression,machine=bench-x64,metric=http/rps/mean,os=linux,profile=local,scenario=plaintext,service=load ` +
			`after=110400,before=120000,change_pct=-8,commit="c0ffee",session="n40",text="load http/rps/mean -8.00%" 1717984800123000000`,
		`crank_changepoint,metric=m,profile=default,scenario=unnamed,service=s after=0,before=0,commit="",session="",text="" 1714528800000000000`,
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("lines:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
}

// changePointRows lists crank_changepoint as "time metric before after" lines.
func changePointRows(t *testing.T, srv *influxtest.Server) string {
	t.Helper()
	var b strings.Builder
	for _, s := range query(t, srv.URL, srv.DB, `SELECT "metric", "before", "after" FROM crank_changepoint`) {
		for _, v := range s.Values {
			fmt.Fprintf(&b, "%.0f %v %v %v\n", v[0], v[1], v[2], v[3])
		}
	}
	return b.String()
}

func TestWriteChangePointsTwiceIsOnePointEach(t *testing.T) {
	srv := influxtest.Start(t)
	cfg := testConfig(t, srv.URL, srv.DB)
	cps := testChangePoints()
	sum, err := WriteChangePoints(context.Background(), cfg, cps)
	if err != nil || sum.Err != nil || sum.Written != 2 || sum.String() != "wrote 2 points to crank/autogen at "+srv.URL {
		t.Fatalf("first write: %+v (%v)", sum, err)
	}
	cps[0].After = 110000 // the history grew: the same change, new values
	if sum, err = WriteChangePoints(context.Background(), cfg, cps); err != nil || sum.Written != 2 {
		t.Fatalf("second write: %+v (%v)", sum, err)
	}
	want := "1716256800000 benchmarks/cpu 80 60\n1717984800123 http/rps/mean 120000 110000\n"
	if got := changePointRows(t, srv); got != want {
		t.Errorf("crank_changepoint:\n%s\nwant:\n%s", got, want)
	}
	if sum, err := WriteChangePoints(context.Background(), cfg, nil); err != nil || sum.String() != "nothing to write" {
		t.Errorf("no change points: %+v (%v)", sum, err)
	}
}

func TestWriteChangePointsSpoolsThenPush(t *testing.T) {
	srv := influxtest.Start(t)
	cfg := testConfig(t, srv.URL, srv.DB)
	srv.Stop()
	cps := testChangePoints()
	var files []string
	for i := range 2 { // spooling the same changes again, with new values, replaces their file
		cps[0].After -= float64(i)
		sum, err := WriteChangePoints(context.Background(), cfg, cps)
		if err != nil || sum.Err == nil || sum.Spooled != 2 || sum.PendingRuns != 1 || sum.PendingPoints != 2 {
			t.Fatalf("influxd down: %+v (%v), want 2 points spooled in one file", sum, err)
		}
		files = append(files, filepath.Base(sum.SpoolFile))
		if !strings.HasPrefix(files[i], "20240521T020000.000000000Z-changepoints-") || files[i] != files[0] ||
			!strings.Contains(sum.String(), "influxdb write failed") || !strings.Contains(sum.String(), "run `crank push`") {
			t.Errorf("summary %q, file %s", sum.String(), sum.SpoolFile)
		}
	}
	srv.Restart()
	var out, errOut bytes.Buffer
	env := map[string]string{"CRANK_INFLUX_URL": srv.URL, "CRANK_INFLUX_BUCKET": srv.DB + "/autogen", "CRANK_SPOOL_DIR": cfg.SpoolDir}
	if code := Main(context.Background(), nil, func(k string) string { return env[k] }, &out, &errOut); code != ExitOK {
		t.Fatalf("push: exit %d: %s %s", code, out.String(), errOut.String())
	}
	if got := changePointRows(t, srv); strings.Count(got, "\n") != 2 {
		t.Errorf("after push, crank_changepoint:\n%s", got)
	}
	if entries, _ := os.ReadDir(cfg.SpoolDir); len(entries) != 0 {
		t.Errorf("spool not empty after push: %v", entries)
	}
}

func TestWriteChangePointsUnspoolable(t *testing.T) {
	file := t.TempDir() + "/file"
	os.WriteFile(file, nil, 0o644)
	cfg := Config{URL: "http://127.0.0.1:1", SpoolDir: file + "/spool", Timeout: time.Second}
	_, err := WriteChangePoints(context.Background(), cfg, testChangePoints())
	if err == nil || !strings.Contains(err.Error(), "write failed") || !strings.Contains(err.Error(), file) {
		t.Errorf("err %v, want the write failure and the spool's", err)
	}
}
