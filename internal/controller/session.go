package controller

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
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
	// Span, when set instead of Iterations, repeats the run until it has passed (crank's --span).
	Span time.Duration
	// Repeat names the service restarted each iteration with the ones after it; the services
	// before it keep running across iterations (crank's --repeat). Empty: the last service.
	Repeat string
	// Exclude leaves outlying iterations out of the means (crank's --exclude, --exclude-order).
	Exclude results.Exclusion
	// Until, when set, is asked after each iteration with every service's results so far: true
	// ends the run there (--iterations auto), before Iterations.
	Until func(perService map[string][]map[string]float64) bool
}

// Execute runs the scenario Iterations times (at least once), or until Span has passed. With
// several iterations, each service's results are the means over the iterations kept (Exclude),
// Spread holds their spread, each iteration's results are kept in Iterations, and the timelines
// are the last iteration's. A figure that is not a finite number (agents' values that overflow
// when combined) is not measured, with why, and said (results.Finite).
func (c *Controller) Execute(ctx context.Context, r Run) (res *results.Result, err error) {
	defer func() {
		if res != nil {
			c.finite(res.JobResults.Jobs)
		}
	}()
	res = &results.Result{
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
	repeating := n > 1 || r.Span > 0
	h := &held{}
	defer func() { c.cleanup(ctx, h.all) }()
	if repeating {
		keep, err := kept(r.Services, r.Repeat)
		if err != nil {
			return nil, err
		}
		h.keep = keep
	}
	perService := map[string][]map[string]float64{}
	start := time.Now()
	i := 1
	for ; ; i++ {
		last := i >= n && r.Span == 0
		if r.Span > 0 {
			fmt.Fprintf(c.opts.Steps, "iteration %d (%s of %s)\n", i, time.Since(start).Round(time.Second), r.Span)
		} else if n > 1 && r.Until != nil {
			fmt.Fprintf(c.opts.Steps, "iteration %d of at most %d\n", i, n)
		} else if n > 1 {
			fmt.Fprintf(c.opts.Steps, "iteration %d of %d\n", i, n)
		}
		jobs, err := c.runPass(withIteration(ctx, i, n), r.Services, h, last)
		if err != nil {
			if repeating {
				err = fmt.Errorf("iteration %d: %w", i, err)
			}
			if keepsFigures(err) && ctx.Err() == nil && jobs != nil {
				res.JobResults.Jobs = jobs // the other generators' (partial) figures
				res.Failures = []string{err.Error()}
				return res, err
			}
			if ctx.Err() == nil {
				return nil, err
			}
			return c.interrupted(r.Exclude, res, perService, jobs, i-1, n), err
		}
		results.Derive(jobs)
		for name, jr := range jobs {
			if prev := res.JobResults.Jobs[name]; prev != nil {
				jr.Profiles = append(prev.Profiles, jr.Profiles...) // every iteration's
			}
			perService[name] = append(perService[name], jr.Results)
			res.JobResults.Jobs[name] = jr
		}
		// With a span, the services kept running are deleted (so stopped) by the deferred cleanup.
		if last || (r.Span > 0 && time.Since(start) >= r.Span) || (r.Until != nil && r.Until(perService)) {
			break
		}
	}
	if i > 1 {
		combineIterations(c.opts.Progress, r.Exclude, res, perService, i)
	}
	return res, nil
}

// kept returns the services that keep running across iterations: those before repeat (matched
// ignoring case, as crank), or before the last service when repeat is empty.
func kept(services []Service, repeat string) (map[string]bool, error) {
	if len(services) == 0 {
		return nil, nil
	}
	at := len(services) - 1
	if repeat != "" {
		at = slices.IndexFunc(services, func(s Service) bool { return strings.EqualFold(s.Name, repeat) })
		if at < 0 {
			var names []string
			for _, s := range services {
				names = append(names, s.Name)
			}
			return nil, fmt.Errorf("--repeat %q: no such service; services: %s", repeat, strings.Join(names, ", "))
		}
	}
	keep := map[string]bool{}
	for _, s := range services[:at] {
		keep[s.Name] = true
	}
	return keep, nil
}

// combineIterations makes each service's results the mean over its n iterations, less those the
// exclusion leaves out, keeping each iteration and the spread.
func combineIterations(w io.Writer, ex results.Exclusion, res *results.Result, perService map[string][]map[string]float64, n int) {
	keep, notes := ex.Keep(perService, n)
	results.WriteExclusionNotes(w, ex, notes)
	for name, jr := range res.JobResults.Jobs {
		jr.Combine(perService[name], keep)
		jr.TimelineIteration = n
	}
}
