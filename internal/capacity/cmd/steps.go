package cmd

import (
	"context"
	"fmt"
	"time"

	"github.com/crankshaft/crankshaft/internal/capacity"
	"github.com/crankshaft/crankshaft/internal/results"
	"github.com/crankshaft/crankshaft/internal/runner"
)

// steps measures the search's steps on the stepper, saying each as it goes, and keeps each
// step's results (the knee's are diagnosed and written).
type steps struct {
	s       *search
	stepper runner.Stepper
	loads   map[string]bool
	byStep  []map[string]*results.JobResult // in the search's order: Steps[i]'s results
	started time.Time
}

// measure is one step: the load run again at the rate asked, the step judged, the server left to
// work off the step's queue before the next.
func (c *steps) measure(ctx context.Context, a capacity.Ask) (capacity.Step, error) {
	again := ""
	if a.Again != "" {
		again = ", measured again: " + a.Again
	}
	fmt.Fprintf(c.s.c.Stderr, "capacity: step %d of at most %d: %.0f req/s (%s%s)\n", a.N, c.s.settings.MaxSteps, a.Rate, time.Since(c.started).Round(time.Second), again)
	p, err := c.s.step(ctx, a.Rate)
	if err != nil {
		return capacity.Step{}, err
	}
	res, err := p.Step(ctx, c.stepper)
	if err != nil {
		return capacity.Step{}, err
	}
	c.byStep = append(c.byStep, res.JobResults.Jobs)
	s := judge(a.Rate, res, c.loads)
	disturbed := ""
	if d := s.Disturbance(); d != "" {
		disturbed = ", disturbed: " + d
	}
	fmt.Fprintf(c.s.c.Stderr, "capacity: %.0f req/s asked, %.0f done, p99 %.2f ms, server CPU %.0f %%%s: %s\n",
		a.Rate, s.Achieved, s.Latency99, s.ServerCPU, disturbed, passText(s))
	if d := capacity.Drain(s, c.s.settings.StepDuration); d > 0 {
		fmt.Fprintf(c.s.c.Stderr, "capacity: waiting %s for the server to work off this step's queue\n", d.Round(100*time.Millisecond))
		select {
		case <-ctx.Done():
		case <-time.After(d):
		}
	}
	return s, nil
}

// judge is a step of a result internal/runner judged (runner.Prepared.Step): capacity.Judge with
// the run's failures besides its thresholds.
func judge(asked float64, res *results.Result, loads map[string]bool) capacity.Step {
	return capacity.Judge(asked, res, runner.RunFailures(res), loads)
}
