package config

import (
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const unreadYAML = `jobs:
  app:
    executable: ./app
    arguments: '--workers {{workers}} --upstream {{upstream}}'
    variables: {workers: 4, upstream: 'http://{{host}}', host: localhost}
  load:
    executable: wrk
    waitForExit: true
    arguments: '-d {{duration}}s -c {{connections}}{% for h in customHeaders %} -H "{{h}}"{% endfor %}'
    variables: {duration: 15, warmup: 5, connections: 32, threads: 1, customHeaders: []}
    onConfigure:
      - job.timeout = Number(job.variables.budget || 60);
onResultsCreated:
  - benchmarks.jobs.load.results.label = benchmarks.jobs.load.variables.label;
scenarios:
  s:
    app: {job: app}
    load: {job: load}
  typo:
    app: {job: app}
    load:
      job: load
      variables:
        connections: 64
        conections: 64
`

func loadUnread(t *testing.T, strict bool) *Config {
	t.Helper()
	path := filepath.Join(t.TempDir(), "main.yml")
	if err := os.WriteFile(path, []byte(unreadYAML), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(filepath.Dir(path))
	cfg, err := Load(t.Context(), []string{"main.yml"}, LoadOptions{Strict: strict})
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

func overrides(t *testing.T, flags ...string) []Override {
	t.Helper()
	var out []Override
	for i := 0; i+1 < len(flags); i += 2 {
		o, err := ParseOverride(flags[i], flags[i+1])
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, o)
	}
	return out
}

// TestUnreadVariables: a variable given for the run that no template reads is a warning naming
// where it was given and the name meant; with --strict it is an error and nothing is resolved.
func TestUnreadVariables(t *testing.T) {
	cases := []struct {
		name string
		req  Request
		want []string
	}{
		{"misspelt service variable", Request{Scenario: "s", Overrides: overrides(t, "load.variables.conections", "64")},
			[]string{`--load.variables.conections: the job of service "load" does not use conections (did you mean connections?)`}},
		{"a whole mapping's entry", Request{Scenario: "s", Overrides: overrides(t, "load.variables", "conections=64")},
			[]string{`--load.variables conections=64: the job of service "load" does not use conections (did you mean connections?)`}},
		{"misspelt --variable", Request{Scenario: "s", Variables: map[string]string{"duraton": "5"}},
			[]string{"--variable duraton: no job of the scenario uses duraton (did you mean duration?)"}},
		{"declared but read by no template", Request{Scenario: "s", Overrides: overrides(t, "load.variables.threads", "2")},
			[]string{`--load.variables.threads: the job of service "load" does not use threads`}},
		{"read by the other service only", Request{Scenario: "s", Overrides: overrides(t, "load.variables.workers", "2")},
			[]string{`--load.variables.workers: the job of service "load" does not use workers`}},
		{"the scenario's own variable", Request{Scenario: "typo"},
			[]string{`main.yml:25: scenario "typo": service "load": variable conections: the job does not use it (did you mean connections?)`}},
		{"read ones", Request{Scenario: "s",
			Variables: map[string]string{"duration": "5", "workers": "2", "host": "h"}, // host: through upstream
			Overrides: overrides(t, "load.variables.connections", "64", "load.variables.warmup", "1", // warmup: read by crank
				"load.variables.customHeaders", "[a: b]", "load.variables.budget", "9", // budget: by onConfigure
				"app.variables.workers", "8", "load.variables.label", "x")}, nil}, // label: by a results script
		{"a swapped job's scenario variables", Request{Scenario: "typo", Overrides: overrides(t, "load.job", "load")}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, err := loadUnread(t, false).Resolve(c.req)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(r.Warnings, c.want) {
				t.Errorf("warnings:\n%s\nwant:\n%s", strings.Join(r.Warnings, "\n"), strings.Join(c.want, "\n"))
			}
			r, err = loadUnread(t, true).Resolve(c.req)
			var ue *UnreadError
			switch {
			case c.want == nil && err != nil:
				t.Errorf("strict: %v", err)
			case c.want == nil:
			case r != nil || !errors.As(err, &ue):
				t.Errorf("strict: resolved %v, error %v; want an UnreadError", r != nil, err)
			case err.Error() != strings.Join(c.want, " (--strict)\n")+" (--strict)" || ue.Msg != c.want[0]:
				t.Errorf("strict: error\n%v\nwant\n%s (--strict)", err, strings.Join(c.want, " (--strict)\n"))
			}
		})
	}
}

// TestShippedVariablesRead: every scenario of the repository's files, and of the copies of crank's
// and aspnet/Benchmarks' files in testdata, reads the variables it sets. The one exception is a
// true one: aspnet/Benchmarks' json_middleware sets scenario: json on a job whose arguments have
// no {{scenario}}.
func TestShippedVariablesRead(t *testing.T) {
	var files []string
	for _, glob := range []string{"../../scenarios/*.yml", "../e2e/testdata/benchmarks/*.yml", "../e2e/testdata/crank/*.yml"} {
		m, err := filepath.Glob(glob)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	want := map[string][]string{"json.benchmarks.yml json_middleware": {
		`../e2e/testdata/benchmarks/json.benchmarks.yml:98: scenario "json_middleware": service "application": variable scenario: the job does not use it`}}
	resolved := 0
	for _, f := range files {
		cfg, err := Load(t.Context(), []string{f}, LoadOptions{})
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		var profiles []string
		if slices.Contains(cfg.Profiles(), "local") && strings.HasPrefix(f, "../../") {
			profiles = []string{"local"}
		}
		for _, sc := range cfg.Scenarios() {
			var vars map[string]string
			if strings.HasSuffix(sc, "-h2loadclient") { // the request a gRPC load needs, as Benchmarks' pipeline gives it
				vars = map[string]string{"path": "/grpc.testing.BenchmarkService/UnaryCall", "body": "AAAAAAcKBVdvcmxk"}
			}
			r, err := cfg.Resolve(Request{Scenario: sc, Profiles: profiles, Variables: vars})
			if err != nil {
				t.Errorf("%s: %s: %v", f, sc, err)
				continue
			}
			resolved++
			if w := want[filepath.Base(f)+" "+sc]; !slices.Equal(r.Warnings, w) {
				t.Errorf("%s: %s: warnings\n%s\nwant\n%s", f, sc, strings.Join(r.Warnings, "\n"), strings.Join(w, "\n"))
			}
		}
	}
	if resolved < 40 {
		t.Errorf("resolved %d scenarios, want the 40 or more of %d files", resolved, len(files))
	}
}

// TestBenchmarksOnOurAppsRead: aspnet/Benchmarks' scenarios run on our apps as docs/CRANK.md and
// internal/e2e run them (--application.job, our apps' file loaded first) read every variable
// those command lines give.
func TestBenchmarksOnOurAppsRead(t *testing.T) {
	common := map[string]string{"duration": "2", "warmup": "0", "threads": "1", "connections": "4"}
	for _, c := range []struct {
		file, scenario, job string
		vars                map[string]string
	}{
		{"json.benchmarks.yml", "json", "json", nil},
		{"plaintext.benchmarks.yml", "plaintext", "plaintext", nil},
		{"grpc.benchmarks.yml", "grpcgoserver-h2loadclient", "grpc",
			map[string]string{"path": "/grpc.testing.BenchmarkService/UnaryCall", "body": "AAAAAAcKBVdvcmxk", "streams": "10"}},
	} {
		files := []string{"../../scenarios/jobs/apps.yml", "../e2e/testdata/benchmarks/" + c.file, "../../profiles/local.yml"}
		cfg, err := Load(t.Context(), files, LoadOptions{Strict: true})
		if err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		vars := maps.Clone(common)
		maps.Copy(vars, c.vars)
		r, err := cfg.Resolve(Request{Scenario: c.scenario, Profiles: []string{"local"}, Variables: vars,
			Overrides: []Override{{Service: "application", Path: "job", Value: c.job}}})
		if err != nil {
			t.Errorf("%s: %s: %v", c.file, c.scenario, err)
		} else if len(r.Warnings) > 0 {
			t.Errorf("%s: %s: warnings %q, want none", c.file, c.scenario, r.Warnings)
		}
	}
}
