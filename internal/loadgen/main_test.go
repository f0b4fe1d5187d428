package loadgen

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/measure"
	"github.com/crankshaft/crankshaft/internal/results"
	"github.com/crankshaft/crankshaft/internal/results/resultstest"
)

func runMain(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	code = Main(ctx, args, func(string) string { return "" }, &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestMainTextSummary(t *testing.T) {
	t.Parallel()
	s := startServer(t, okReply)
	code, out, errOut := runMain(t, "-c", "2", s.url(), "--duration", "0.2", "--pipeline", "4", "-H", "X-A: b")
	if code != ExitOK || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	for _, want := range []string{"2 connections", "pipeline 4", "Status: 2xx", "Requests/sec:"} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	// The time it says is the run's, at least the 0.2 s asked: not a band (beside a busy core a
	// gate run here printed 0.30s, and the test once wanted "in 0.2").
	m := regexp.MustCompile(`requests in (\d+\.\d+)s`).FindStringSubmatch(out)
	if len(m) != 2 {
		t.Fatalf("summary lacks \"requests in <time>s\":\n%s", out)
	}
	if took, err := strconv.ParseFloat(m[1], 64); err != nil || took < 0.2 {
		t.Errorf("summary's time %q: want the run's, at least the 0.2 s asked:\n%s", m[1], out)
	}
}

func TestMainJSONOutput(t *testing.T) {
	t.Parallel()
	s := startServer(t, okReply)
	code, out, errOut := runMain(t, s.url(), "-d", "200ms", "-c", "2", "--output", "json")
	if code != ExitOK || !strings.Contains(errOut, "Requests/sec:") {
		t.Fatalf("exit %d, stderr %q; want 0 and the summary on stderr", code, errOut)
	}
	if strings.Count(out, "\n") != 1 {
		t.Errorf("stdout is not one line of JSON: %q", out)
	}
	var got jsonOutput
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	if got.Error != "" || got.Report == nil || got.Results[measure.Requests] != float64(got.Report.Requests) ||
		got.Results[measure.Requests] != float64(s.requests.Load()) || got.Results[measure.BuiltinRPS] != got.Report.RPS {
		t.Errorf("output %+v does not agree with itself and the server (%d)", got, s.requests.Load())
	}
}

func TestMainCrankResultFile(t *testing.T) {
	t.Parallel()
	s := startServer(t, okReply)
	path := filepath.Join(t.TempDir(), "out.json")
	code, _, errOut := runMain(t, s.url(), "-d", "0.2", "-c", "2", "--json", path)
	if code != ExitOK {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	r := resultstest.ReadResult(t, path)
	job := r.JobResults.Jobs[LoadJob]
	if job == nil || job.Results[measure.Requests] != float64(s.requests.Load()) {
		t.Fatalf("jobs.load = %+v, want results with %d requests", job, s.requests.Load())
	}
	// One metadata per result and per timeline measurement; the timeline's one second (0.2 s)
	// gives four timestamped values, then one value per result.
	timeline := len(timelineMetadata())
	if len(job.Metadata) != len(job.Results)+timeline || len(job.Measurements) != 1 || len(job.Measurements[0]) != len(job.Results)+timeline {
		t.Fatalf("metadata %d, measurements %v for %d results: want one of each, and %d for the timeline", len(job.Metadata), len(job.Measurements), len(job.Results), timeline)
	}
	if m := job.Measurements[0][0]; m.Name != TimelineRPS || m.Value*0.2 < float64(s.requests.Load())*0.5 || m.Timestamp.Before(r.StartTime) {
		t.Errorf("first timeline measurement %+v: want %s near %d/0.2s after %v", m, TimelineRPS, s.requests.Load(), r.StartTime)
	}
	for _, m := range job.Metadata {
		if m.Name == measure.BuiltinRPS && m.Unit != measure.UnitRPS {
			t.Errorf("metadata %+v", m)
		}
	}
}

func TestMainCrankResultOnStdout(t *testing.T) {
	t.Parallel()
	s := startServer(t, okReply)
	code, out, errOut := runMain(t, s.url(), "-d", "0.2", "-c", "1", "--json", "-")
	var r results.Result
	if err := json.Unmarshal([]byte(out), &r); code != ExitOK || err != nil || r.JobResults.Jobs[LoadJob] == nil {
		t.Fatalf("exit %d, stdout %q (%v)", code, out, err)
	}
	if !strings.Contains(errOut, "Requests/sec:") {
		t.Errorf("summary not on stderr: %q", errOut)
	}
}

func TestMainFailures(t *testing.T) {
	t.Parallel()
	down := "http://" + closedPort(t) + "/"
	cases := []struct {
		args     []string
		code     int
		stderr   string
		jsonLine bool
	}{
		{[]string{}, ExitUsage, "want one URL", false},
		{[]string{"http://a/", "http://b/"}, ExitUsage, "want one URL", false},
		{[]string{"http://a/", "-d", "5x"}, ExitUsage, "neither seconds nor a duration", false},
		{[]string{"http://a/", "--nope"}, ExitUsage, "unknown flag --nope", false},
		{[]string{"http://a/", "--conections", "2"}, ExitUsage, "unknown flag --conections (did you mean --connections?)", false},
		{[]string{"http://a/", "--output", "xml"}, ExitUsage, "--output", false},
		{[]string{"ftp://a/"}, ExitUsage, "scheme must be http", false},
		{[]string{"http://a/", "--protocol", "spdy"}, ExitUsage, "protocol must be http1, h2 or grpc", false},
		{[]string{"http://a/", "-m", "8"}, ExitUsage, "streams apply to h2 and grpc", false},
		{[]string{"http://a/", "--protocol", "h2", "-p", "4"}, ExitUsage, "pipeline applies to HTTP/1.1", false},
		{[]string{"http://a/", "--response-size", "10"}, ExitUsage, "apply to --protocol grpc", false},
		{[]string{"http://a/", "--protocol", "grpc", "--call", "bidi"}, ExitUsage, "call must be unary or streaming", false},
		{[]string{down, "--protocol", "h2", "-d", "0.1", "-c", "1"}, ExitFailed, "first connect error", false},
		{[]string{down, "-d", "0.1", "-c", "1"}, ExitFailed, "no responses", false},
		{[]string{down, "-d", "0.1", "-c", "1", "--output", "json"}, ExitFailed, "no responses", true},
	}
	for _, c := range cases {
		code, out, errOut := runMain(t, c.args...)
		if code != c.code || !strings.Contains(errOut, c.stderr) {
			t.Errorf("%q: exit %d, stderr %q; want %d and %q", c.args, code, errOut, c.code, c.stderr)
		}
		var got jsonOutput
		if c.jsonLine && (json.Unmarshal([]byte(out), &got) != nil || !strings.Contains(got.Error, "no responses")) {
			t.Errorf("%q: stdout %q, want a JSON error", c.args, out)
		}
	}
}

func TestMainHelp(t *testing.T) {
	code, out, _ := runMain(t, "--help")
	if code != ExitOK || !strings.Contains(out, "usage: crank load URL") || !strings.Contains(out, "-connections") {
		t.Errorf("exit %d, stdout %q", code, out)
	}
}

func TestParseArgs(t *testing.T) {
	c, err := parseArgs([]string{"--duration", "5", "http://h:1/p?q=1", "-w", "1.5", "-T", "250ms",
		"-H", "A: b", "--header", "C: d", "-R", "100", "-t", "2", "--method", "POST", "--body", "x"}, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	o := c.opts
	if o.URL != "http://h:1/p?q=1" || o.Duration != 5*time.Second || o.Warmup != 1500*time.Millisecond ||
		o.Timeout != 250*time.Millisecond || len(o.Headers) != 2 || o.Rate != 100 || o.Threads != 2 ||
		o.Connections != DefaultConnections || o.Pipeline != 1 || o.Method != "POST" || string(o.Body) != "x" {
		t.Errorf("options %+v", o)
	}
}

func TestBuildRequest(t *testing.T) {
	o := Options{Method: "POST", Headers: []string{"X-A:  b ", "host: other"}, Body: []byte("hi")}
	tg, err := parseTarget("http://127.0.0.1:8080/a?b=c")
	if err != nil {
		t.Fatal(err)
	}
	want := "POST /a?b=c HTTP/1.1\r\nX-A: b\r\nhost: other\r\nContent-Length: 2\r\n\r\nhi"
	if got := string(buildRequest(o, tg)); got != want {
		t.Errorf("request %q, want %q", got, want)
	}
	o = Options{Method: "GET"}
	want = "GET /a?b=c HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n"
	if got := string(buildRequest(o, tg)); got != want || tg.addr != "127.0.0.1:8080" {
		t.Errorf("request %q to %s, want %q", got, tg.addr, want)
	}
}

func TestParseArgsGRPC(t *testing.T) {
	c, err := parseArgs([]string{"https://h:1", "--protocol", "grpc", "-m", "70", "-c", "28", "-k",
		"--call", "streaming", "--response-size", "10", "--request-size", "5"}, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	o := c.opts
	if o.Protocol != ProtocolGRPC || o.Streams != 70 || o.Connections != 28 || !o.Insecure || o.Call != CallStreaming ||
		o.ResponseSize != 10 || o.RequestSize != 5 {
		t.Errorf("options %+v", o)
	}
	req, err := buildH2Request(o.withDefaults(), mustTarget(t, o.URL))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{":method": "POST", ":scheme": "https", ":authority": "h:1",
		":path": streamingPath, "content-type": "application/grpc", "te": "trailers"}
	for _, f := range req.fields {
		if v, ok := want[f.Name]; ok && v != f.Value {
			t.Errorf("%s: %q, want %q", f.Name, f.Value, v)
		}
		delete(want, f.Name)
	}
	// 5-byte prefix, then response_size (field 2) and a 5-byte payload body (field 3 holding field 2).
	if len(want) != 0 || len(req.body) != 5+2+2+2+5 || req.body[0] != 0 || int(req.body[4]) != len(req.body)-5 {
		t.Errorf("missing fields %v, body % x", want, req.body)
	}
}

func mustTarget(t *testing.T, url string) target {
	t.Helper()
	tg, err := parseTarget(url)
	if err != nil {
		t.Fatal(err)
	}
	return tg
}
