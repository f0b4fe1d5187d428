package config

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/crankshaft/crankshaft/internal/measure"
)

// loadShipped loads scenarios/plaintext.yml from the repository root.
func loadShipped(t *testing.T) *Config {
	t.Helper()
	cfg, err := Load(context.Background(), []string{"../../scenarios/plaintext.yml"}, LoadOptions{})
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	return cfg
}

func resolveShipped(t *testing.T, req Request) (application, load Service) {
	t.Helper()
	req.Scenario = "plaintext"
	r, err := loadShipped(t).Resolve(req)
	if err != nil {
		t.Fatalf("resolve %+v: %v", req, err)
	}
	if len(r.Services) != 2 || r.Services[0].Name != "application" || r.Services[1].Name != "load" {
		t.Fatalf("services = %+v, want application then load", r.Services)
	}
	return r.Services[0], r.Services[1]
}

const plaintextHeaders = `-H "Accept: text/plain,text/html;q=0.9,application/xhtml+xml;q=0.9,application/xml;q=0.8,*/*;q=0.7" -H "Connection: keep-alive"`

func TestShippedPlaintext(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	for _, profiles := range [][]string{nil, {"local"}} {
		app, load := resolveShipped(t, Request{Profiles: profiles})
		a := app.Job
		if a.Service != "application" || a.Name != "plaintext" || a.Executable != "./bin/plaintext" ||
			a.Arguments != "--address 127.0.0.1 --port 5000 --metrics-port 5001 --dispatch inline --partitions 0 --workers 0 --mutex-profile-fraction 0" ||
			a.Port != 5000 || a.MetricsPort != 5001 || len(a.Counters) != len(measure.DefaultCounters()) ||
			a.ReadyStateText != "Application started." || a.BuildCommand != "go build -o bin/plaintext ./apps/plaintext" {
			t.Errorf("profiles %v: application job = %+v", profiles, a)
		}
		if a.Source == nil || a.Source.LocalFolder != root {
			t.Errorf("profiles %v: application source = %+v, want localFolder %s", profiles, a.Source, root)
		}
		l := load.Job
		wantArgs := "-c 32 -t 1 -d 15s --latency " + plaintextHeaders + " -s scripts/pipeline.lua http://127.0.0.1:5000/plaintext -- 16"
		wantWarmup := "-c 32 -t 1 -d 5s --latency " + plaintextHeaders + " -s scripts/pipeline.lua http://127.0.0.1:5000/plaintext -- 16"
		if l.Arguments != wantArgs || l.WarmupArguments != wantWarmup {
			t.Errorf("profiles %v: wrk arguments\n got %q\nwant %q\nwarmup\n got %q\nwant %q", profiles, l.Arguments, wantArgs, l.WarmupArguments, wantWarmup)
		}
		if l.Name != "wrk" || l.Executable != "wrk" || l.Parser != "wrk" || !l.WaitForExit {
			t.Errorf("profiles %v: load job = %+v", profiles, l)
		}
		if len(app.Endpoints) != 0 || len(load.Endpoints) != 0 {
			t.Errorf("profiles %v: endpoints %v %v, want none (embedded agent)", profiles, app.Endpoints, load.Endpoints)
		}
	}
}

// TestShippedPlaintextKnobs: the dispatch knobs reach the app's flags, and the metrics port follows
// serverPort unless set (0 turns the metrics off).
func TestShippedPlaintextKnobs(t *testing.T) {
	app, _ := resolveShipped(t, Request{Variables: map[string]string{
		"serverPort": "7000", "dispatch": "partitioned", "partitions": "4", "workers": "8"}})
	want := "--address 127.0.0.1 --port 7000 --metrics-port 7001 --dispatch partitioned --partitions 4 --workers 8 --mutex-profile-fraction 0"
	if a := app.Job; a.Arguments != want || a.MetricsPort != 7001 || a.Port != 7000 {
		t.Errorf("arguments %q metricsPort %d port %d\nwant %q, 7001, 7000", a.Arguments, a.MetricsPort, a.Port, want)
	}
	app, _ = resolveShipped(t, Request{Variables: map[string]string{"metricsPort": "0"}})
	if a := app.Job; a.MetricsPort != 0 || len(a.Counters) != 0 || !strings.Contains(a.Arguments, "--metrics-port 0 ") {
		t.Errorf("metricsPort=0: metricsPort %d, %d counters, arguments %q", a.MetricsPort, len(a.Counters), a.Arguments)
	}
}

func TestShippedRepoRootHasGoMod(t *testing.T) {
	app, _ := resolveShipped(t, Request{})
	if _, err := os.Stat(filepath.Join(app.Job.Source.LocalFolder, "go.mod")); err != nil {
		t.Errorf("localFolder %s is not the repository root: %v", app.Job.Source.LocalFolder, err)
	}
}

func TestShippedOverrides(t *testing.T) {
	_, load := resolveShipped(t, Request{
		Profiles:  []string{"local"},
		Variables: map[string]string{"serverAddress": "10.0.0.4", "pipeline": "1"},
		Overrides: []Override{
			{Service: "load", Path: "variables.connections", Value: "64"},
			{Service: "load", Path: "variables.warmup", Value: "0"},
			{Service: "load", Path: "variables.customHeaders", Value: "X-Run: 7"},
		},
	})
	want := "-c 64 -t 1 -d 15s --latency " + plaintextHeaders + ` -H "X-Run: 7" http://10.0.0.4:5000/plaintext`
	if load.Job.Arguments != want || load.Job.WarmupArguments != "" {
		t.Errorf("arguments\n got %q\nwant %q\nwarmup %q, want empty", load.Job.Arguments, want, load.Job.WarmupArguments)
	}
}

func TestShippedBombardierSwap(t *testing.T) {
	_, load := resolveShipped(t, Request{Overrides: []Override{{Service: "load", Path: "job", Value: "bombardier"}}})
	accept := `-H "Accept: text/plain,text/html;q=0.9,application/xhtml+xml;q=0.9,application/xml;q=0.8,*/*;q=0.7"`
	want := "-c 32 -d 15s -l -p r -o json -k " + accept + " http://127.0.0.1:5000/plaintext"
	wantWarmup := "-c 32 -d 5s -l -p r -o json -k " + accept + " http://127.0.0.1:5000/plaintext"
	l := load.Job
	if l.Name != "bombardier" || l.Executable != "bombardier" || l.Parser != "bombardier" || !l.WaitForExit ||
		l.Arguments != want || l.WarmupArguments != wantWarmup {
		t.Errorf("bombardier job = %+v\nwant arguments %q\nwarmup %q", l, want, wantWarmup)
	}
}

func TestShippedScenarioList(t *testing.T) {
	cfg := loadShipped(t)
	if got := cfg.Scenarios(); len(got) != 1 || got[0] != "plaintext" {
		t.Errorf("Scenarios() = %v", got)
	}
	if got := cfg.Profiles(); len(got) != 1 || got[0] != "local" {
		t.Errorf("Profiles() = %v", got)
	}
	// apps.yml brings every app of ours (json, fortunes, grpc through techempower.yml)
	if got, want := cfg.Jobs(), []string{"bombardier", "builtin", "fortunes", "grpc", "json", "plaintext", "wrk"}; !slices.Equal(got, want) {
		t.Errorf("Jobs() = %v", got)
	}
}

func TestResolveConcurrently(t *testing.T) {
	cfg := loadShipped(t)
	errs := make(chan error, 4)
	for i := range 4 {
		go func() {
			req := Request{Scenario: "plaintext", Profiles: []string{"local"},
				Overrides: []Override{{Service: "load", Path: "variables.connections", Value: string(rune('1' + i))}}}
			r, err := cfg.Resolve(req)
			if err == nil && r.Services[1].Job.Variables["connections"] != i+1 {
				err = fmt.Errorf("goroutine %d: connections = %v", i, r.Services[1].Job.Variables["connections"])
			}
			errs <- err
		}()
	}
	for range 4 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}
