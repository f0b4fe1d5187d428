package runner

import (
	"context"
	"errors"
	"io"
	"maps"
	"testing"

	"github.com/crankshaft/crankshaft/internal/config"
	"github.com/crankshaft/crankshaft/internal/controller"
	"github.com/crankshaft/crankshaft/internal/measure"
	"github.com/crankshaft/crankshaft/internal/results"
)

// measured is an Executor that measures nothing: every run gets the same figures.
type measured struct{ runs int }

func (m *measured) Execute(_ context.Context, r controller.Run) (*results.Result, error) {
	m.runs++
	jobs := map[string]*results.JobResult{}
	for _, s := range r.Services {
		jr := &results.JobResult{Results: map[string]float64{measure.CPU: 40}, Variables: map[string]any{}}
		if s.Job.WaitForExit {
			jr.Results = map[string]float64{measure.Requests: 1000, measure.RPS: 100, measure.Latency99: 2}
			jr.Variables = s.Job.Variables
		}
		jobs[s.Name] = jr
	}
	return &results.Result{JobResults: results.JobResults{Jobs: jobs}}, nil
}

// TestResolvedOncePerRun: a run resolves its scenario once, whatever follows the measurement
// (diagnosis, scripts, thresholds, outputs), and whatever variables it sets (its variant is told
// from the same resolution); the probe, a measurement of its own, resolves its own scenario once.
// One exception, on a machine without wrk: the scenario is resolved again with the built-in
// generator in wrk's place (the job changes, so everything rendered from it does).
func TestResolvedOncePerRun(t *testing.T) {
	for _, c := range []struct {
		probe      ProbeMode
		flags      string
		noWrk      bool
		want, runs int
	}{{ProbeOff, "", false, 1, 1}, {ProbeForce, "", false, 2, 2}, {ProbeOff, "--variable dispatch=partitioned --load.variables.connections 64", false, 1, 1},
		{ProbeOff, "", true, 2, 1}} {
		calls := 0
		lookPath := func(string) (string, error) { return "/usr/bin/wrk", nil }
		if c.noWrk {
			lookPath = func(string) (string, error) { return "", errors.New("not found") }
		}
		env := Env{Stdout: io.Discard, Stderr: io.Discard, LookPath: lookPath,
			Resolve: func(cfg *config.Config, req config.Request) (*config.Resolved, error) {
				calls++
				return cfg.Resolve(req)
			}}
		src := plaintext(c.flags)
		p, err := Prepare(context.Background(), env, Plan{Source: src, Probe: c.probe, Run: controller.Run{Iterations: 1},
			Verdict: Verdict{MaxErrorRate: DefaultMaxErrorRate}})
		if err != nil {
			t.Fatal(err)
		}
		ex := &measured{}
		emitted := 0
		err = p.Execute(context.Background(), ex, func(context.Context, *results.Result, []string) int { emitted++; return ExitOK })
		if CodeOf(err) != ExitOK || emitted != 1 {
			t.Fatalf("probe %d: %v, emitted %d", c.probe, err, emitted)
		}
		if calls != c.want || ex.runs != c.runs {
			t.Errorf("probe %d %q (no wrk %v): config.Resolve ran %d times for %d measurements, want %d for %d", c.probe, c.flags, c.noWrk,
				calls, ex.runs, c.want, c.runs)
		}
		if c.flags != "" && !maps.Equal(p.Resolved.Variant, map[string]string{"dispatch": "partitioned", "connections": "64"}) {
			t.Errorf("%s: variant %v", c.flags, p.Resolved.Variant)
		}
	}
}
