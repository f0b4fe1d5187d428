package gate

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
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

// nightlyRuns builds n nightly plaintext runs on profile "local", one a day, the last an hour
// ago, whose load RPS steps by step from run `at` on. Start times carry nanoseconds, which
// InfluxQL reads back as milliseconds.
func nightlyRuns(n, at int, step float64) []*results.Result {
	rng := rand.New(rand.NewPCG(60, 40))
	first := time.Now().UTC().Truncate(time.Second).Add(-time.Duration(n-1)*24*time.Hour - time.Hour + 123456789)
	out := make([]*results.Result, n)
	for i := range out {
		level := 120000.0
		if i >= at {
			level *= 1 + step
		}
		r := newResult(rng, 0,
			rps(level*(1+0.005*rng.NormFloat64()), 0),
			metricSpec{measure.Latency99, 3.2 * (1 + 0.02*rng.NormFloat64()), 0},
			metricSpec{measure.CPU, 70 + rng.NormFloat64(), 0})
		r.StartTime = first.Add(time.Duration(i) * 24 * time.Hour)
		r.Profiles, r.Session = []string{"local"}, fmt.Sprintf("n%02d", i)
		r.JobResults.Jobs["load"].Environment = map[string]any{"arch": "x64", "os": "linux", "hostname": "bench-1"}
		out[i] = r
	}
	return out
}

// influxEnv starts influxd, publishes runs to it and returns the environment naming it.
func influxEnv(t *testing.T, runs []*results.Result) (*influxtest.Server, func(string) string) {
	t.Helper()
	srv := influxtest.Start(t)
	env := map[string]string{"CRANK_INFLUX_URL": srv.URL, "CRANK_INFLUX_BUCKET": srv.DB + "/autogen",
		"CRANK_SPOOL_DIR": filepath.Join(t.TempDir(), "spool"), "CRANK_COMMIT": "c0ffee"}
	getenv := func(k string) string { return env[k] }
	cfg := influx.ConfigFromEnv(getenv)
	for _, r := range runs {
		if sum, err := influx.Publish(context.Background(), cfg, r, nil); err != nil || sum.Err != nil {
			t.Fatalf("publish %s: %v %v", r.Session, err, sum.Err)
		}
	}
	return srv, getenv
}

func runRegressionsEnv(getenv func(string) string, args ...string) (int, string, string) {
	var out, errOut bytes.Buffer
	code := RegressionsEnv(context.Background(), args, getenv, &out, &errOut)
	return code, out.String(), errOut.String()
}

// oneFinding runs the command with --format json and returns its only finding.
func oneFinding(t *testing.T, getenv func(string) string, args ...string) Finding {
	t.Helper()
	code, out, errOut := runRegressionsEnv(getenv, append(args, "--format", "json")...)
	var found []Finding
	if err := json.Unmarshal([]byte(out), &found); code != ExitOK || err != nil || len(found) != 1 {
		t.Fatalf("%v: exit %d, %d findings (%v), want exactly one:\n%s\n%s", args, code, len(found), err, out, errOut)
	}
	if !strings.Contains(errOut, "change points: wrote 1 points to crank/autogen") {
		t.Errorf("%v: stderr %q, want the write reported", args, errOut)
	}
	return found[0]
}

// annotationQuery is the nightly dashboard's crank_changepoint annotation query.
func annotationQuery(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../../dashboards/crank-nightly.json")
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Annotations struct {
			List []struct {
				Target struct{ Query string } `json:"target"` // Grafana's InfluxDB annotation query
			} `json:"list"`
		} `json:"annotations"`
	}
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatal(err)
	}
	for _, a := range d.Annotations.List {
		if strings.Contains(a.Target.Query, influx.MeasurementChangePoint) {
			return a.Target.Query
		}
	}
	t.Fatal("crank-nightly.json has no crank_changepoint annotation")
	return ""
}

// annotations runs the annotation query over the last 90 days for scenario plaintext, profile
// local, every machine, arch and variant.
func annotations(t *testing.T, srv *influxtest.Server) [][]any {
	t.Helper()
	now := time.Now()
	q := strings.NewReplacer("$scenario", "plaintext", "$profile", "local", "$machine", ".*", "$arch", ".*", "$variant", ".*", "$timeFilter",
		fmt.Sprintf("time >= %dms and time <= %dms", now.Add(-90*24*time.Hour).UnixMilli(), now.UnixMilli())).
		Replace(annotationQuery(t))
	s, err := influx.Query(context.Background(), srv.URL, "", srv.DB, q)
	if err != nil {
		t.Fatal(err)
	}
	var rows [][]any
	for _, x := range s {
		rows = append(rows, x.Values...)
	}
	return rows
}

func TestRegressionsFromInfluxWritesOneChangePoint(t *testing.T) {
	runs := nightlyRuns(60, 40, -0.08)
	srv, getenv := influxEnv(t, runs)
	f := oneFinding(t, getenv, "--scenario", "plaintext", "--profile", "local")
	if f.Service != "load" || f.Metric != measure.RPS || f.Index < 39 || f.Index > 41 || !f.Regression ||
		f.Change > -0.07 || f.Change < -0.09 || f.Arch != "x64" || f.Machine != "bench-1" || f.File != "" ||
		f.Session != runs[f.Index].Session || f.Commit != "c0ffee" || f.Profiles != "local" {
		t.Errorf("finding %+v, want a load http/rps/mean regression of about -8%% at run 40±1 on x64 bench-1", f)
	}
	if want := runs[f.Index].StartTime.Truncate(time.Millisecond); !f.Time.Equal(want) {
		t.Errorf("time %v, want %v", f.Time, want)
	}
	rows := annotations(t, srv)
	if len(rows) != 1 || rows[0][0] != float64(f.Time.UnixMilli()) || rows[0][2] != measure.RPS || rows[0][3] != "regression" ||
		!strings.HasPrefix(rows[0][1].(string), fmt.Sprintf("regression load http/rps/mean %+.2f%% (", 100*f.Change)) {
		t.Fatalf("annotation rows %v, want the change point", rows)
	}
	// Again, from InfluxDB with the text report, from the last 30 days, and from a folder of the
	// same runs: the same change point, still one point.
	code, out, errOut := runRegressionsEnv(getenv)
	if code != ExitOK || !strings.Contains(out, "1 change point(s) in 3 series over 60 results in crank_summary of crank/autogen at "+srv.URL) ||
		!strings.Contains(out, "x64 bench-1") || !strings.Contains(out, runs[f.Index].Session) {
		t.Errorf("text report: exit %d:\n%s%s", code, out, errOut)
	}
	if g := oneFinding(t, getenv, "--since", "30d"); g.Index != f.Index-30 || !g.Time.Equal(f.Time) {
		t.Errorf("--since 30d: %+v, want index %d at %v", g, f.Index-30, f.Time)
	}
	dir := t.TempDir()
	for _, r := range runs {
		writeResult(t, dir, r.Session+".json", r)
	}
	if g := oneFinding(t, getenv, "--history", dir); g.Index != f.Index || g.File != runs[f.Index].Session+".json" {
		t.Errorf("from a folder: %+v, want index %d", g, f.Index)
	}
	if rows := annotations(t, srv); len(rows) != 1 {
		t.Errorf("after four runs, %d change points, want 1: %v", len(rows), rows)
	}
}

func TestRegressionsFromInfluxBadInput(t *testing.T) {
	srv, getenv := influxEnv(t, nightlyRuns(8, 8, 0))
	down := func(k string) string {
		if k == "CRANK_INFLUX_URL" {
			return "http://127.0.0.1:1"
		}
		return getenv(k)
	}
	cases := []struct {
		getenv func(string) string
		args   []string
		want   string
	}{
		{getenv, []string{"--metric", "x/y"}, `unknown metric "x/y": no run in crank_summary of crank/autogen at ` + srv.URL},
		{getenv, []string{"--scenario", "json", "--since", "2w"}, `no run of scenario "json" since `},
		{getenv, []string{"--since", "90x"}, `flag --since: "90x": want a positive age such as 90d, 2w or 36h`},
		{getenv, []string{"--since", "-2d"}, `flag --since: "-2d": want a positive age`},
		{down, nil, "http://127.0.0.1:1"},
	}
	for _, c := range cases {
		code, _, errOut := runRegressionsEnv(c.getenv, c.args...)
		if code != ExitBadInput || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, errOut, c.want)
		}
	}
	if code, out, _ := runRegressionsEnv(getenv, "--format", "json", "--since", "36h"); code != ExitOK || strings.TrimSpace(out) != "[]" {
		t.Errorf("--since 36h: exit %d, %s", code, out)
	}
}

// TestRegressionsWriteFailureKeepsTheReport: with InfluxDB down the report is printed and the
// change point spooled; when it cannot be spooled either, the exit status says so.
func TestRegressionsWriteFailureKeepsTheReport(t *testing.T) {
	dir := writeHistory(t, 60, 40, -0.08)
	spool := filepath.Join(t.TempDir(), "spool")
	env := map[string]string{"CRANK_INFLUX_URL": "http://127.0.0.1:1", "CRANK_SPOOL_DIR": spool}
	getenv := func(k string) string { return env[k] }
	code, out, errOut := runRegressionsEnv(getenv, "--history", dir, "--fail-on-regression")
	if code != ExitRegressed || !strings.Contains(out, "1 change point(s)") || !strings.Contains(errOut, "influxdb write failed") ||
		!strings.Contains(errOut, "spooled 1 points to "+spool) {
		t.Errorf("InfluxDB down: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if files, _ := filepath.Glob(filepath.Join(spool, "*-changepoints-*.lp")); len(files) != 1 {
		t.Errorf("spool holds %v, want one change point file", files)
	}
	env["CRANK_SPOOL_DIR"] = filepath.Join(dir, "nightly-001.json", "spool") // under a file: cannot be made
	code, out, errOut = runRegressionsEnv(getenv, "--history", dir)
	if code != ExitNotWritten || !strings.Contains(out, "1 change point(s)") || !strings.Contains(errOut, "change points not written") {
		t.Errorf("unspoolable: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, ExitNotWritten, out, errOut)
	}
	code, _, errOut = runRegressionsEnv(getenv, "--history", dir, "--write-changepoints=false")
	if code != ExitOK || errOut != "" {
		t.Errorf("--write-changepoints=false: exit %d, stderr %q", code, errOut)
	}
}

// TestRegressionsInfluxToken: the token comes from the environment, the flag overrides it, and
// neither shows in the usage text.
func TestRegressionsInfluxToken(t *testing.T) {
	auth := make(chan string, 4)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth <- r.Header.Get("Authorization")
		io.WriteString(w, `{"results": [{"statement_id": 0}]}`)
	}))
	defer srv.Close()
	env := map[string]string{"CRANK_INFLUX_URL": srv.URL, "CRANK_INFLUX_TOKEN": "sekrit"}
	getenv := func(k string) string { return env[k] }
	for _, c := range []struct {
		args []string
		want string
	}{{nil, "Token sekrit"}, {[]string{"--influx-token", "other"}, "Token other"}} {
		code, _, errOut := runRegressionsEnv(getenv, c.args...)
		if code != ExitBadInput || !strings.Contains(errOut, "no run in crank_summary of crank/autogen at "+srv.URL) {
			t.Errorf("%v: exit %d, stderr %q", c.args, code, errOut)
		}
		if got := <-auth; got != c.want {
			t.Errorf("%v: Authorization %q, want %q", c.args, got, c.want)
		}
	}
	if code, out, _ := runRegressionsEnv(getenv, "--help"); code != ExitOK || strings.Contains(out, "sekrit") ||
		!strings.Contains(out, "--influx-token") {
		t.Errorf("--help: exit %d, usage on stdout shows the token or no token flag:\n%s", code, out)
	}
}
