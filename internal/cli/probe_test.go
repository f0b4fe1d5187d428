package cli

import (
	"bytes"
	"context"
	"maps"
	"strings"
	"testing"

	"github.com/crankshaft/crankshaft/internal/api"
)

// The probe doubles the load's connections whichever way they were given: the job's default, a
// --load.variables override, or a top-level --variable (which beats a job's own variables), and
// shortens duration and warm-up given either way.
func TestProbeFlagsDouble(t *testing.T) {
	for _, tc := range []struct {
		args  string
		conns float64
	}{
		{"", 32},
		{"--load.variables.connections 4", 4},
		{"--variable connections=1 --variable duration=30", 1},
		{"--load.variables.connections 8 --variable connections=3", 3},
	} {
		args := append(strings.Fields("--config ../../scenarios/plaintext.yml --scenario plaintext"), strings.Fields(tc.args)...)
		f, err := parseRunFlags(args, func(string) string { return "" })
		if err != nil {
			t.Fatal(err)
		}
		var errb bytes.Buffer
		st := State{Stdout: &errb, Stderr: &errb, LookPath: func(string) (string, error) { return "/usr/bin/wrk", nil }}
		resolved, _, err := resolve(context.Background(), st, f)
		if err != nil {
			t.Fatal(err)
		}
		before, vars := len(f.overrides), maps.Clone(f.variables)
		pf, conns, err := probeFlags(f, resolved)
		if err != nil || conns != tc.conns {
			t.Fatalf("%s: connections %v, %v; want %v", tc.args, conns, err, tc.conns)
		}
		pr, _, err := resolve(context.Background(), st, pf)
		if err != nil {
			t.Fatal(err)
		}
		if err := checkDoubled(pr, conns); err != nil {
			t.Errorf("%s: %v", tc.args, err)
		}
		for _, s := range pr.Services {
			if s.Name != "load" {
				continue
			}
			c, _ := api.Number(s.Job.Variables["connections"])
			d, _ := api.Number(s.Job.Variables["duration"])
			w, _ := api.Number(s.Job.Variables["warmup"])
			if c != 2*tc.conns || d > ProbeDuration || w > ProbeWarmup {
				t.Errorf("%s: the probe's load runs %v connections for %v s after %v s, want %v for at most %d after at most %d",
					tc.args, c, d, w, 2*tc.conns, ProbeDuration, ProbeWarmup)
			}
		}
		if len(f.overrides) != before || !maps.Equal(f.variables, vars) {
			t.Errorf("%s: probeFlags changed the run's own flags: %v %v", tc.args, f.overrides, f.variables)
		}
	}
	// Without the fix a top-level variable wins over the probe's override: checkDoubled says so.
	f, _ := parseRunFlags(strings.Fields("--config ../../scenarios/plaintext.yml --scenario plaintext --variable connections=1 --load.variables.connections 2"), func(string) string { return "" })
	var errb bytes.Buffer
	st := State{Stdout: &errb, Stderr: &errb, LookPath: func(string) (string, error) { return "/usr/bin/wrk", nil }}
	pr, _, err := resolve(context.Background(), st, f)
	if err != nil {
		t.Fatal(err)
	}
	if err := checkDoubled(pr, 1); err == nil || !strings.Contains(err.Error(), "load would run at 1 connections, not 2") {
		t.Errorf("checkDoubled on an overridden override: %v", err)
	}
}

func TestProbeSwitches(t *testing.T) {
	none := func(string) string { return "" }
	for args, want := range map[string][2]bool{
		"":                   {false, false},
		"--probe":            {false, true},
		"--no-probe":         {true, false},
		"--probe --no-probe": {true, false},
		"--no-probe --probe": {false, true},
	} {
		f, err := parseRunFlags(append(strings.Fields("--config a.yml --scenario x"), strings.Fields(args)...), none)
		if err != nil || f.noProbe != want[0] || f.forceProbe != want[1] {
			t.Errorf("%q: noProbe %v forceProbe %v (%v), want %v", args, f.noProbe, f.forceProbe, err, want)
		}
	}
}
