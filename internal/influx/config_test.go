package influx

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/influxdata/influxdb-client-go/v2/api/write"

	"github.com/crankshaft/crankshaft/internal/results"
)

func envOf(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestConfigFromEnv(t *testing.T) {
	c := ConfigFromEnv(envOf(map[string]string{
		"CRANK_INFLUX_URL": "http://127.0.0.1:8086", "CRANK_INFLUX_TOKEN": "u:p", "CRANK_INFLUX_ORG": "o",
		"CRANK_INFLUX_BUCKET": "perf/weekly", "CRANK_INFLUX_TIMEOUT": "3s", "HOME": "/home/x",
		"GITHUB_REF_NAME": "main", "CRANK_COMMIT": "abc", "CRANK_INFLUX_VARIABLE_TAGS": "partitions, threads",
		"CRANK_INFLUX_TAGS": "lab=a, rack=3",
	}))
	want := Config{URL: "http://127.0.0.1:8086", Token: "u:p", Org: "o", Bucket: "perf/weekly",
		SpoolDir: "/home/x/.crank/spool", Timeout: 3 * time.Second,
		Tags: Tags{Branch: "main", Commit: "abc", Variables: []string{"partitions", "threads"},
			Extra: map[string]string{"lab": "a", "rack": "3"}}}
	if !reflect.DeepEqual(c, want) {
		t.Errorf("got %+v\nwant %+v", c, want)
	}
	if !c.Enabled() || c.Database() != "perf" {
		t.Errorf("Enabled %v Database %q", c.Enabled(), c.Database())
	}
	d := ConfigFromEnv(envOf(map[string]string{"CRANK_SPOOL_DIR": "/s", "CRANK_INFLUX_TIMEOUT": "bad"}))
	if d.Enabled() || d.Bucket != DefaultBucket || d.SpoolDir != "/s" || d.Timeout != DefaultTimeout || d.Database() != "crank" {
		t.Errorf("defaults: %+v", d)
	}
}

func TestPointsAreDeterministic(t *testing.T) {
	a, _ := Lines(Points(smallResult(), Tags{}))
	for range 20 { // map order differs between calls
		b, _ := Lines(Points(smallResult(), Tags{}))
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("lines differ between calls:\n%v\n%v", a, b)
		}
	}
	r := smallResult()
	r.StartTime, r.Session = time.Time{}, ""
	if got, _ := RunTime(r); !got.Equal(t0) {
		t.Errorf("RunTime without startTime = %v, want the first sample %v", got, t0)
	}
	if s := SessionOf(r); s != "20240501-020000" {
		t.Errorf("SessionOf = %q", s)
	}
	if p := Points(&results.Result{}, Tags{}); p != nil {
		t.Errorf("empty result: %d points", len(p))
	}
	if _, err := Publish(context.Background(), Config{URL: "http://127.0.0.1:1"}, &results.Result{}, nil); err == nil || !strings.Contains(err.Error(), "the result has no points") {
		t.Errorf("Publish of an empty result: %v", err)
	}
}

func TestChangePointPoint(t *testing.T) {
	cp := ChangePoint{Time: t0, Scenario: "plaintext", Service: "load", Metric: "http/rps/mean",
		Arch: "arm64", Direction: "regression", Before: 200, After: 150, Session: "s9", Commit: "abc", Text: "rps -25%"}
	lines, err := Lines([]*write.Point{cp.Point()})
	want := `crank_changepoint,arch=arm64,direction=regression,metric=http/rps/mean,profile=default,scenario=plaintext,service=load after=150,before=200,change_pct=-25,commit="abc",session="s9",text="rps -25%" 1714528800000000000`
	if err != nil || len(lines) != 1 || lines[0] != want {
		t.Errorf("got %q, %v\nwant %q", lines, err, want)
	}
}

func TestSpoolSaveListRead(t *testing.T) {
	sp := Spool{Dir: filepath.Join(t.TempDir(), "a", "b")}
	if list, err := sp.List(); err != nil || list != nil {
		t.Fatalf("missing folder: %v %v", list, err)
	}
	name := FileName(smallResult())
	if name != "20240501T020000.000000000Z-s1-"+name[len(name)-11:] || !strings.HasSuffix(name, ".lp") {
		t.Errorf("FileName = %q", name)
	}
	p1, err := sp.Save(name, []string{"run x", "multi\nline"}, []string{"m a=1 1", "m a=2 2"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sp.Save("19990101-old.lp", nil, []string{"m a=0 0"}); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(sp.Dir, ".tmp-partial"), []byte("m a=9 9\n"), 0o644)
	os.WriteFile(filepath.Join(sp.Dir, "notes.txt"), []byte("m a=9 9\n"), 0o644)
	list, err := sp.List()
	if err != nil || len(list) != 2 || filepath.Base(list[0].Path) != "19990101-old.lp" || list[1] != (Pending{p1, 2}) {
		t.Fatalf("List = %+v, %v", list, err)
	}
	header, lines, err := sp.Read(p1)
	if err != nil || !reflect.DeepEqual(header, []string{"run x", "multi line"}) || !reflect.DeepEqual(lines, []string{"m a=1 1", "m a=2 2"}) {
		t.Errorf("Read = %q %q %v", header, lines, err)
	}
	if runs, points, err := sp.Totals(); runs != 2 || points != 3 || err != nil {
		t.Errorf("Totals = %d %d %v", runs, points, err)
	}
	if err := sp.Remove(p1); err != nil || sp.Remove(p1) != nil {
		t.Errorf("Remove twice: %v", err)
	}
}

func TestPushCommandLine(t *testing.T) {
	dir := t.TempDir()
	run := func(env map[string]string, args ...string) (int, string, string) {
		var out, errOut strings.Builder
		code := Main(context.Background(), args, envOf(env), &out, &errOut)
		return code, out.String(), errOut.String()
	}
	if code, _, _ := run(nil, "--nope"); code != ExitUsage {
		t.Errorf("bad flag: exit %d", code)
	}
	if code, _, errOut := run(nil, "extra"); code != ExitUsage || !strings.Contains(errOut, `unexpected argument "extra"`) {
		t.Errorf("extra argument: exit %d %q", code, errOut)
	}
	if code, out, _ := run(nil, "--spool", dir); code != ExitOK || out != "nothing pending in "+dir+"\n" {
		t.Errorf("empty spool: exit %d %q", code, out)
	}
	Spool{dir}.Save("x.lp", nil, []string{"m a=1 1"})
	code, out, errOut := run(map[string]string{"CRANK_SPOOL_DIR": dir})
	if code != ExitUsage || out != filepath.Join(dir, "x.lp")+"\t1 points\n1 runs (1 points) pending\n" ||
		!strings.Contains(errOut, "set --influx-url") {
		t.Errorf("no url: exit %d %q %q", code, out, errOut)
	}
	if code, out, _ := run(map[string]string{"CRANK_SPOOL_DIR": dir, "CRANK_INFLUX_URL": "http://127.0.0.1:1"}, "--list"); code != ExitOK || !strings.Contains(out, "1 runs (1 points) pending") {
		t.Errorf("--list: exit %d %q", code, out)
	}
	code, out, _ = run(map[string]string{"CRANK_SPOOL_DIR": dir}, "--influx-url", "http://127.0.0.1:1")
	if code != ExitPending || !strings.Contains(out, "influxdb write failed") || !strings.Contains(out, "1 runs (1 points) pending in "+dir) {
		t.Errorf("unreachable: exit %d %q", code, out)
	}
	if code, _, errOut := run(map[string]string{"CRANK_SPOOL_DIR": dir}, "--influx-url", "127.0.0.1:1"); code != ExitUsage || !strings.Contains(errOut, "want http://") {
		t.Errorf("bad url: exit %d %q", code, errOut)
	}
}
