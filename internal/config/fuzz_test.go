package config

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fixtureYAML returns the YAML files of the fixtures, as fuzzing seeds.
func fixtureYAML(f *testing.F) []string {
	paths, _ := filepath.Glob(filepath.Join("testdata", "fixtures", "*.txt"))
	var out []string
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		for _, sec := range strings.Split("\n"+string(b), "\n-- ")[1:] {
			name, body, _ := strings.Cut(sec, " --\n")
			if strings.HasSuffix(name, ".yml") || strings.HasSuffix(name, ".yaml") {
				out = append(out, body)
			}
		}
	}
	return out
}

var quiet = LoadOptions{Logger: slog.New(slog.DiscardHandler)}

// resolveAll resolves and dry-runs every scenario of cfg with req's other fields.
func resolveAll(t *testing.T, cfg *Config, req Request) {
	for _, s := range cfg.Scenarios() {
		req.Scenario = s
		if r, err := cfg.Resolve(req); err == nil {
			if _, err := r.DryRun(); err != nil {
				t.Fatalf("scenario %q resolved but its dry run failed: %v", s, err)
			}
		}
	}
}

// FuzzLoad: any file given to --config loads, resolves and dry-runs without a panic or a hang;
// a file that loads resolves to a dry run or an error.
func FuzzLoad(f *testing.F) {
	for _, y := range fixtureYAML(f) {
		f.Add(y)
	}
	f.Add(aliasBomb())
	f.Add("jobs: {a: {executable: x}}\nscenarios: {s: {x: {job: a}}}\nprofiles: {p: {jobs: {x: {endpoints: [e]}}}}\n")
	f.Fuzz(func(t *testing.T, yml string) {
		path := filepath.Join(t.TempDir(), "fuzz.yml")
		if err := os.WriteFile(path, []byte(yml), 0o644); err != nil {
			t.Fatal(err)
		}
		cfg, err := Load(context.Background(), []string{path}, quiet)
		if err != nil {
			return
		}
		resolveAll(t, cfg, Request{Profiles: cfg.Profiles()})
	})
}

// FuzzOverrides: any --<service>.<path> value and --variable on the command line, applied to a
// real scenario file, resolves and dry-runs without a panic.
func FuzzOverrides(f *testing.F) {
	cfg, err := Load(context.Background(), []string{"../../scenarios/plaintext.yml"}, quiet)
	if err != nil {
		f.Fatal(err)
	}
	f.Add("load.variables.connections", "64", "duration", "3")
	f.Add("application.environmentVariables", "GOGC=off", "warmup", "0")
	f.Add("load.job", "bombardier", "x", "[1, {a: b}]")
	f.Add("application.endpoints", "[http://a:5010, http://b:5010]", "serverPort", "{{ serverPort }}")
	f.Add("load.arguments", "{% for i in (1..3) %}{{i}}{% endfor %}", "pipeline", "'16'")
	f.Fuzz(func(t *testing.T, name, value, variable, varValue string) {
		o, err := ParseOverride(name, value)
		if err != nil {
			return
		}
		req := Request{Scenario: "plaintext", Profiles: []string{"local"}, Overrides: []Override{o},
			Variables: map[string]string{variable: varValue}}
		if r, err := cfg.Resolve(req); err == nil {
			if _, err := r.DryRun(); err != nil {
				t.Fatalf("resolved but its dry run failed: %v", err)
			}
		}
	})
}
