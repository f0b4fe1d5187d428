package controller

import (
	"context"

	"github.com/crankshaft/crankshaft/internal/results"
)

// Stepper runs a scenario pass after pass with the services before the load (the application,
// its database) kept running, each pass with services that may differ in their load (crank
// capacity's rate steps). Close stops and deletes the kept services.
type Stepper struct {
	c *Controller
	h *held
}

// NewStepper keeps every service before repeat (the last service when empty) running across the
// steps.
func (c *Controller) NewStepper(services []Service, repeat string) (*Stepper, error) {
	keep, err := kept(services, repeat)
	if err != nil {
		return nil, err
	}
	return &Stepper{c: c, h: &held{keep: keep}}, nil
}

// Step runs one pass with these services (the kept ones are started by the first step and reused
// after), and returns each service's results with the derived ones; the kept services' figures
// cover this step only. When ctx is cancelled, what the step measured is returned with the error.
func (s *Stepper) Step(ctx context.Context, services []Service) (map[string]*results.JobResult, error) {
	jobs, err := s.c.runPass(ctx, services, s.h, false)
	if jobs != nil {
		results.Derive(jobs)
		s.c.finite(jobs)
	}
	return jobs, err
}

// Close stops and deletes the kept services.
func (s *Stepper) Close(ctx context.Context) {
	s.c.cleanup(ctx, s.h.all)
}
