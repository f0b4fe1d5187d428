// Package profiles_test checks that every profile shipped in this folder resolves with the
// plaintext scenario, sends each service where it says, and is documented in README.md.
package profiles_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/config"
)

// dryService is the part of a service's --dry-run JSON the tests read.
type dryService struct {
	Arguments string         `json:"arguments"`
	Variables map[string]any `json:"variables"`
	Endpoints []string       `json:"endpoints"`
}

// want is what one profile does to one service of the plaintext scenario.
type want struct {
	endpoints []string
	variables map[string]any // a subset of the resolved variables
	args      []string       // parts of the rendered arguments
	options   api.Options
}

// resolve loads the plaintext scenario with the profile's file (the way the README runs it)
// and returns the resolved jobs and the dry-run services.
func resolve(t *testing.T, file, profile string) (map[string]api.Job, map[string]dryService) {
	t.Helper()
	files := []string{"../scenarios/plaintext.yml"}
	if file != "local.yml" { // the scenario imports local.yml itself
		files = append(files, file)
	}
	cfg, err := config.Load(context.Background(), files, config.LoadOptions{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatalf("load %v: %v", files, err)
	}
	r, err := cfg.Resolve(config.Request{Scenario: "plaintext", Profiles: []string{profile}})
	if err != nil {
		t.Fatalf("resolve with --profile %s: %v", profile, err)
	}
	b, err := r.DryRun()
	if err != nil {
		t.Fatal(err)
	}
	var dry struct {
		Services map[string]dryService `json:"services"`
	}
	if err := json.Unmarshal(b, &dry); err != nil {
		t.Fatalf("dry run JSON: %v\n%s", err, b)
	}
	jobs := map[string]api.Job{}
	for _, s := range r.Services {
		jobs[s.Name] = s.Job
	}
	return jobs, dry.Services
}

// profileCase is one profile file's profile and what it does to each service.
type profileCase struct {
	file, profile string
	services      map[string]want
}

func TestProfilesResolveWithPlaintext(t *testing.T) {
	cases := []profileCase{
		{"local.yml", "local", map[string]want{
			"application": {endpoints: []string{}, variables: map[string]any{"serverAddress": "127.0.0.1"}},
			"load":        {endpoints: []string{}, args: []string{"http://127.0.0.1:5000/plaintext"}},
		}},
		{"lab-x64.yml", "lab-x64", map[string]want{
			"application": {endpoints: []string{"http://10.10.0.11:5010"},
				variables: map[string]any{"serverAddress": "10.10.0.11", "databaseServer": "10.10.0.12", "cores": 28.0},
				args:      []string{"--address 10.10.0.11 --port 5000"},
				options:   api.Options{RequiredArchitecture: "x64", RequiredOperatingSystem: "linux"}},
			"load": {endpoints: []string{"http://10.10.0.13:5010"},
				variables: map[string]any{"serverAddress": "10.10.0.11", "cores": 28.0, "threads": 28.0, "connections": 256.0},
				args:      []string{"-c 256 -t 28 ", "http://10.10.0.11:5000/plaintext"},
				options:   api.Options{RequiredOperatingSystem: "linux"}},
		}},
		{"ampere-80.yml", "ampere-80", map[string]want{
			"application": {endpoints: []string{"http://10.20.0.10:5010"},
				variables: map[string]any{"serverAddress": "10.20.0.10", "cores": 80.0},
				args:      []string{"--address 10.20.0.10 --port 5000"},
				options:   api.Options{RequiredArchitecture: "arm64", RequiredOperatingSystem: "linux"}},
			"load": {endpoints: []string{"http://10.20.0.21:5010", "http://10.20.0.22:5010"},
				variables: map[string]any{"serverAddress": "10.20.0.10", "cores": 32.0, "threads": 32.0, "connections": 256.0},
				args:      []string{"-c 256 -t 32 ", "http://10.20.0.10:5000/plaintext"},
				options:   api.Options{RequiredArchitecture: "x64", RequiredOperatingSystem: "linux"}},
		}},
		{"techempower.yml", "techempower", map[string]want{
			"application": {endpoints: []string{"http://10.0.0.1:5010"},
				variables: map[string]any{"serverAddress": "10.0.0.1", "serverPort": 8080.0, "databaseServer": "10.0.0.2", "cores": 28.0},
				args:      []string{"--address 10.0.0.1 --port 8080"},
				options:   api.Options{RequiredOperatingSystem: "linux"}},
			"load": {endpoints: []string{"http://10.0.0.3:5010"},
				variables: map[string]any{"serverAddress": "10.0.0.1", "cores": 28.0, "threads": 28.0},
				args:      []string{"-c 32 -t 28 -d 15s", "http://10.0.0.1:8080/plaintext"},
				options:   api.Options{RequiredOperatingSystem: "linux"}},
		}},
	}
	files, _ := filepath.Glob("*.yml")
	for _, f := range files {
		if !slices.ContainsFunc(cases, func(c profileCase) bool { return c.file == f }) {
			t.Errorf("%s has no case here: add what its profiles do to the plaintext scenario", f)
		}
	}
	for _, c := range cases {
		t.Run(c.profile, func(t *testing.T) {
			jobs, dry := resolve(t, c.file, c.profile)
			for svc, w := range c.services {
				d, ok := dry[svc]
				if !ok {
					t.Fatalf("no service %q in the dry run", svc)
				}
				if !slices.Equal(d.Endpoints, w.endpoints) {
					t.Errorf("%s: endpoints %q, want %q", svc, d.Endpoints, w.endpoints)
				}
				for k, v := range w.variables {
					if d.Variables[k] != v {
						t.Errorf("%s: variable %s = %v (%T), want %v", svc, k, d.Variables[k], d.Variables[k], v)
					}
				}
				for _, part := range w.args {
					if !strings.Contains(d.Arguments, part) {
						t.Errorf("%s: arguments %q lack %q", svc, d.Arguments, part)
					}
				}
				if got := jobs[svc].Options; got != w.options {
					t.Errorf("%s: options %+v, want %+v", svc, got, w.options)
				}
			}
		})
	}
}

// TestEveryProfileDocumented: each profile file's profiles have a section in README.md, and each
// file is tested above.
func TestEveryProfileDocumented(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob("*.yml")
	if err != nil || len(files) < 3 {
		t.Fatalf("profile files: %v, %v", files, err)
	}
	for _, f := range files {
		cfg, err := config.Load(context.Background(), []string{f}, config.LoadOptions{Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, p := range cfg.Profiles() {
			if !strings.Contains(string(readme), "## `"+p+"`") {
				t.Errorf("README.md has no section \"## `%s`\" for the profile in %s", p, f)
			}
		}
	}
}
