package runner

import (
	"bytes"
	"context"
	"maps"
	"strings"
	"testing"

	"github.com/crankshaft/crankshaft/internal/api"
)

// plaintext is the source of scenarios/plaintext.yml's plaintext scenario with the flags given
// (--variable NAME=V and --<service>.<path> V, as crank's command line gives them).
func plaintext(flags string) Source {
	src := Source{Configs: []string{"../../scenarios/plaintext.yml"}, Scenario: "plaintext", Variables: map[string]string{}, JSONVars: map[string]any{}}
	f := strings.Fields(flags)
	for i := 0; i+1 < len(f); i += 2 {
		if f[i] == "--variable" {
			k, v, _ := strings.Cut(f[i+1], "=")
			src.Variables[k] = v
			continue
		}
		src.Overrides = append(src.Overrides, [2]string{strings.TrimPrefix(f[i], "--"), f[i+1]})
	}
	return src
}

// The probe doubles the load's connections (a second probe: four times them) whichever way they
// were given: the job's default, a --load.variables override, or a top-level --variable (which
// beats a job's own variables), and shortens duration and warm-up given either way.
func TestProbeSourceDoubles(t *testing.T) {
	for _, tc := range []struct {
		args   string
		conns  float64
		factor float64
	}{
		{"", 32, 2},
		{"--load.variables.connections 4", 4, 2},
		{"--variable connections=1 --variable duration=30", 1, 2},
		{"--load.variables.connections 8 --variable connections=3", 3, 2},
		{"--load.variables.connections 4", 4, 4},
		{"--variable connections=3 --variable duration=30", 3, 4},
	} {
		f := plaintext(tc.args)
		var errb bytes.Buffer
		st := Env{Stdout: &errb, Stderr: &errb, LookPath: func(string) (string, error) { return "/usr/bin/wrk", nil }}
		resolved, _, err := Resolve(context.Background(), st, f)
		if err != nil {
			t.Fatal(err)
		}
		before, vars := len(f.Overrides), maps.Clone(f.Variables)
		pf, conns, err := probeSource(f, resolved, tc.factor)
		if err != nil || conns != tc.conns {
			t.Fatalf("%s: connections %v, %v; want %v", tc.args, conns, err, tc.conns)
		}
		pr, _, err := Resolve(context.Background(), st, pf)
		if err != nil {
			t.Fatal(err)
		}
		if err := checkConnections(pr, tc.factor*conns); err != nil {
			t.Errorf("%s: %v", tc.args, err)
		}
		for _, s := range pr.Services {
			if s.Name != "load" {
				continue
			}
			c, _ := api.Number(s.Job.Variables["connections"])
			d, _ := api.Number(s.Job.Variables["duration"])
			w, _ := api.Number(s.Job.Variables["warmup"])
			if c != tc.factor*tc.conns || d > ProbeDuration || w > ProbeWarmup {
				t.Errorf("%s: the probe's load runs %v connections for %v s after %v s, want %v for at most %d after at most %d",
					tc.args, c, d, w, tc.factor*tc.conns, ProbeDuration, ProbeWarmup)
			}
		}
		if len(f.Overrides) != before || !maps.Equal(f.Variables, vars) {
			t.Errorf("%s: probeSource changed the run's own source: %v %v", tc.args, f.Overrides, f.Variables)
		}
	}
	// Without the fix a top-level variable wins over the probe's override: checkConnections says so.
	f := plaintext("--variable connections=1 --load.variables.connections 2")
	var errb bytes.Buffer
	st := Env{Stdout: &errb, Stderr: &errb, LookPath: func(string) (string, error) { return "/usr/bin/wrk", nil }}
	pr, _, err := Resolve(context.Background(), st, f)
	if err != nil {
		t.Fatal(err)
	}
	if err := checkConnections(pr, 2); err == nil || !strings.Contains(err.Error(), "load would run at 1 connections, not 2") {
		t.Errorf("checkConnections on an overridden override: %v", err)
	}
}
