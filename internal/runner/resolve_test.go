package runner

import (
	"context"
	"io"
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
// (diagnosis, scripts, thresholds, outputs); the probe, a measurement of its own, resolves its
// own scenario once.
func TestResolvedOncePerRun(t *testing.T) {
	for _, c := range []struct {
		probe ProbeMode
		want  int
	}{{ProbeOff, 1}, {ProbeForce, 2}} {
		calls := 0
		env := Env{Stdout: io.Discard, Stderr: io.Discard, LookPath: func(string) (string, error) { return "/usr/bin/wrk", nil },
			Resolve: func(cfg *config.Config, req config.Request) (*config.Resolved, error) {
				calls++
				return cfg.Resolve(req)
			}}
		src := plaintext("")
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
		if calls != c.want || ex.runs != c.want {
			t.Errorf("probe %d: config.Resolve ran %d times for %d measurements, want %d", c.probe, calls, ex.runs, c.want)
		}
	}
}
