package controller

import (
	"context"
	"fmt"
	"time"

	"github.com/crankshaft/crankshaft/internal/results"
)

// Run describes one invocation: the scenario, how many iterations, and what to record with it.
type Run struct {
	Scenario    string
	Profiles    []string
	Services    []Service
	Iterations  int
	Description string
	Session     string
	Properties  map[string]string
}

// Execute runs the scenario Iterations times (at least once). With several iterations, each
// service's results are the mean over iterations, each iteration's results are kept in
// Iterations, and the timelines are the last iteration's.
func (c *Controller) Execute(ctx context.Context, r Run) (*results.Result, error) {
	res := &results.Result{
		StartTime:   time.Now().UTC(),
		Scenario:    r.Scenario,
		Profiles:    r.Profiles,
		Description: r.Description,
		Session:     r.Session,
		JobResults:  results.JobResults{Jobs: map[string]*results.JobResult{}, Properties: r.Properties},
	}
	if res.JobResults.Properties == nil {
		res.JobResults.Properties = map[string]string{}
	}
	n := max(r.Iterations, 1)
	perService := map[string][]map[string]float64{}
	for i := 1; i <= n; i++ {
		if n > 1 {
			fmt.Fprintf(c.opts.Progress, "iteration %d of %d\n", i, n)
		}
		jobs, err := c.RunOnce(withIteration(ctx, i, n), r.Services)
		if err != nil {
			if n > 1 {
				err = fmt.Errorf("iteration %d: %w", i, err)
			}
			if ctx.Err() == nil {
				return nil, err
			}
			return interrupted(res, perService, jobs, i-1, n), err
		}
		for name, jr := range jobs {
			perService[name] = append(perService[name], jr.Results)
			res.JobResults.Jobs[name] = jr
		}
	}
	if n > 1 {
		keepIterations(res, perService)
	}
	return res, nil
}

// keepIterations makes each service's results the mean over its iterations and keeps each one.
func keepIterations(res *results.Result, perService map[string][]map[string]float64) {
	for name, jr := range res.JobResults.Jobs {
		jr.Iterations = perService[name]
		jr.Results = results.Average(perService[name])
	}
}
