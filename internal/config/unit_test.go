package config

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/measure"
)

// writeTree writes files (slash paths) under a new temporary folder and returns it.
func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, data := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestParseScalarText(t *testing.T) {
	for in, want := range map[string]any{
		"64": 64, "-3": -3, "1.5": 1.5, "true": true, "false": false, "'16'": "16", `"1.10"`: "1.10",
		"": "", "  ": "  ", "null": "null", "~": "~", "off": "off", "yes": "yes",
		"Accept: text/plain": "Accept: text/plain", "[a, b]": "[a, b]", "http://x:5000/p?q=1": "http://x:5000/p?q=1",
		"#x": "#x", "{a}": "{a}", "*alias": "*alias",
	} {
		if got := parseScalarText(in); got != want {
			t.Errorf("parseScalarText(%q) = %#v, want %#v", in, got, want)
		}
	}
}

func TestParseOverride(t *testing.T) {
	o, err := ParseOverride("load.variables.connections", "64")
	if err != nil || o != (Override{Service: "load", Path: "variables.connections", Value: "64"}) {
		t.Fatalf("got %+v, %v", o, err)
	}
	if o.String() != "--load.variables.connections" {
		t.Errorf("String() = %q", o.String())
	}
	if o, err := ParseOverride("--load.job", "bombardier"); err != nil || o.Service != "load" || !o.isJobSwap() {
		t.Errorf("leading dashes: %+v, %v", o, err)
	}
	for _, bad := range []string{"load", ".x", "load.", "load..x", ""} {
		if _, err := ParseOverride(bad, "1"); err == nil || !strings.Contains(err.Error(), "option --"+bad+": ") {
			t.Errorf("ParseOverride(%q) = %v, want it refused naming the option", bad, err)
		}
	}
}

func TestPrepareTemplate(t *testing.T) {
	for in, want := range map[string]string{
		"{% if a == blank %}":                      "{% if a | crank_blank %}",
		"{% if a != blank  %}":                     "{% if a | crank_not_blank  %}",
		"{% if a.b[c] == empty or blank == d %}":   "{% if a.b[c] | crank_empty or d | crank_blank %}",
		"{% elsif x <> empty %}":                   "{% elsif x | crank_not_empty %}",
		"{% assign s = h | split : ':' %}":         "{% assign s = h | split: ':' %}",
		"a == blank {{ x }}":                       "a == blank {{ x }}",
		"{{ 'blank' }} {% if word == 'blank' %}":   "{{ 'blank' }} {% if word == 'blank' %}",
		"{% if blanket == 1 or emptyList == [] %}": "{% if blanket == 1 or emptyList == [] %}",
	} {
		if got := prepareTemplate(in); got != want {
			t.Errorf("prepareTemplate(%q)\n got %q\nwant %q", in, got, want)
		}
	}
}

func TestBlankAndEmpty(t *testing.T) {
	type c struct {
		v            any
		blank, empty bool
	}
	for _, tc := range []c{
		{nil, true, false}, {"", true, true}, {" \t", true, false}, {"x", false, false},
		{false, true, false}, {true, false, false}, {0, false, false},
		{[]any{}, true, true}, {[]string{"a"}, false, false}, {map[string]any{}, true, true},
	} {
		if isBlank(tc.v) != tc.blank || isEmpty(tc.v) != tc.empty {
			t.Errorf("%#v: blank %v empty %v, want %v %v", tc.v, isBlank(tc.v), isEmpty(tc.v), tc.blank, tc.empty)
		}
	}
}

func TestDurationsAndSource(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"main.yml": "imports: [jobs/app.yml]\nscenarios:\n  s:\n    app: {job: app}\n    other: {job: other}\n",
		"jobs/app.yml": `jobs:
  app:
    executable: ./app
    startTimeout: '30'
    timeout: 2m
    interval: 0.5
    warmup: '{{w}}'
    metricsPort: '9090'
    source: {localFolder: ../src, repository: ''}
    options: {requiredArchitecture: x64}
    counters:
      - {metric: http_requests_total, measurement: app/requests, read: rate, scale: 1}
    variables: {w: 10}
  other:
    executable: ./other
    source: {localFolder: /abs/dir}
`,
	})
	t.Chdir(dir)
	cfg, err := Load(context.Background(), []string{"main.yml"}, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := cfg.Resolve(Request{Scenario: "s", Overrides: []Override{{Service: "other", Path: "source.localFolder", Value: "rel"}}})
	if err != nil {
		t.Fatal(err)
	}
	j := r.Services[0].Job
	if j.StartTimeout.Std() != 30*time.Second || j.Timeout.Std() != 2*time.Minute ||
		j.Interval.Std() != 500*time.Millisecond || j.Warmup.Std() != 10*time.Second || j.MetricsPort != 9090 {
		t.Errorf("durations/ports: %+v", j)
	}
	cwd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	wantSrc := filepath.Join(cwd, "src") // ../src from jobs/app.yml
	if j.Source == nil || j.Source.LocalFolder != wantSrc || j.Options.RequiredArchitecture != "x64" {
		t.Errorf("source %+v options %+v, want localFolder %s", j.Source, j.Options, wantSrc)
	}
	wantCounters := append([]api.CounterSpec{{Metric: "http_requests_total", Measurement: "app/requests", Read: "rate", Scale: 1}},
		measure.DefaultCounters()...) // a job with metricsPort gets the defaults after its own
	if !reflect.DeepEqual(j.Counters, wantCounters) {
		t.Errorf("counters = %+v", j.Counters)
	}
	if got := r.Services[1].Job.Source.LocalFolder; got != filepath.Join(cwd, "rel") {
		t.Errorf("command-line localFolder = %q, want %q", got, filepath.Join(cwd, "rel"))
	}
}

func TestResolveDoesNotChangeConfig(t *testing.T) {
	dir := writeTree(t, map[string]string{"main.yml": `jobs:
  app:
    executable: ./app
    arguments: '{{n}}'
    environmentVariables: {A: '1'}
    variables: {n: 1}
scenarios:
  s:
    app: {job: app}
`})
	cfg, err := Load(context.Background(), []string{filepath.Join(dir, "main.yml")}, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	first, err := cfg.Resolve(Request{Scenario: "s", Overrides: []Override{
		{Service: "app", Path: "variables.n", Value: "2"}, {Service: "app", Path: "environmentVariables", Value: "B=2"}}})
	if err != nil {
		t.Fatal(err)
	}
	second, err := cfg.Resolve(Request{Scenario: "s"})
	if err != nil {
		t.Fatal(err)
	}
	if a, b := first.Services[0].Job, second.Services[0].Job; a.Arguments != "2" || len(a.Environment) != 2 ||
		b.Arguments != "1" || len(b.Environment) != 1 {
		t.Errorf("first %q %v, second %q %v", a.Arguments, a.Environment, b.Arguments, b.Environment)
	}
}

func TestLoadHTTP(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if r.URL.Path != "/jobs.yml" {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write([]byte("jobs:\n  app: {executable: ./app}\n"))
	}))
	defer srv.Close()
	dir := writeTree(t, map[string]string{"main.yml": "imports: [" + srv.URL + "/jobs.yml]\nscenarios:\n  s:\n    app: {job: app}\n"})
	main := filepath.Join(dir, "main.yml")

	cfg, err := Load(context.Background(), []string{main}, LoadOptions{HTTPClient: srv.Client()})
	if err != nil || hits.Load() != 1 {
		t.Fatalf("load: %v (hits %d)", err, hits.Load())
	}
	if got := cfg.Jobs(); len(got) != 1 || got[0] != "app" {
		t.Errorf("jobs = %v", got)
	}

	_, err = Load(context.Background(), []string{srv.URL + "/missing.yml"}, LoadOptions{})
	if err == nil || !strings.Contains(err.Error(), "/missing.yml: 404 Not Found") {
		t.Errorf("missing URL: %v", err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = Load(ctx, []string{main}, LoadOptions{})
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "main.yml:1: import") {
		t.Errorf("cancelled: %v", err)
	}
}

func TestLoadNoPaths(t *testing.T) {
	if _, err := Load(context.Background(), nil, LoadOptions{}); err == nil || !strings.Contains(err.Error(), "no configuration file given (--config)") {
		t.Fatalf("Load(nil) = %v", err)
	}
}

func TestDryRunShape(t *testing.T) {
	r := &Resolved{Scenario: "s", Services: []Service{
		{Name: "b", Job: api.Job{Name: "j", Executable: "x", Arguments: "a && b <c>"}},
		{Name: "a", Job: api.Job{Name: "k", Executable: "y"}, Endpoints: []string{"http://h:5010"}},
	}}
	out, err := r.DryRun()
	if err != nil {
		t.Fatal(err)
	}
	want := `{
  "scenario": "s",
  "services": {
    "b": {
      "job": "j",
      "executable": "x",
      "arguments": "a && b <c>",
      "variables": {},
      "environmentVariables": {},
      "endpoints": []
    },
    "a": {
      "job": "k",
      "executable": "y",
      "arguments": "",
      "variables": {},
      "environmentVariables": {},
      "endpoints": [
        "http://h:5010"
      ]
    }
  }
}`
	if string(out) != want {
		t.Errorf("DryRun:\n%s\nwant:\n%s", out, want)
	}
}

func TestUnmatchedProfileEntryIsLogged(t *testing.T) {
	dir := writeTree(t, map[string]string{"main.yml": `results: []
jobs:
  app:
    executable: ./app
    isConsoleApp: true
    source: {repository: https://example.test/r.git}
scenarios:
  s:
    app: {job: app, endpoints: []}
profiles:
  p:
    agents:
      db: {endpoints: ['http://10.0.0.1:5010']}
`})
	var logs strings.Builder
	log := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	cfg, err := Load(context.Background(), []string{filepath.Join(dir, "main.yml")}, LoadOptions{Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	r, err := cfg.Resolve(Request{Scenario: "s", Profiles: []string{"p"}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Services[0].Job.Source.Repository != "https://example.test/r.git" || len(r.Services[0].Endpoints) != 0 {
		t.Errorf("job = %+v, endpoints %v", r.Services[0].Job, r.Services[0].Endpoints)
	}
	for _, want := range []string{"entry=db"} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("debug log lacks %q:\n%s", want, logs.String())
		}
	}
}
