package config

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/script"
)

// SplitVariables are the variables of a load that are totals: a load service on several
// endpoints splits them across its endpoints (by Service.Weights, else evenly), so the endpoints
// together make the load the scenario asks for (docs/DISTRIBUTED.md).
var SplitVariables = []string{"rate", "connections"}

// Share is one endpoint's part of a load service.
type Share struct {
	Endpoint string
	// Weight is the endpoint's weight (1 each when the service has no weights).
	Weight float64
	// Variables are the endpoint's share of each split variable the job has.
	Variables map[string]int
	// Job is the service's job rendered with those shares.
	Job api.Job
}

// weightList decodes a weights key: positive numbers.
func (d *decoder) weightList(p pair) []float64 {
	if !p.value.isList() {
		d.fail(p.keyPos, p.key, "want a list of positive numbers, one per endpoint")
		return nil
	}
	out := make([]float64, 0, len(p.value.items))
	for _, it := range p.value.items {
		w := d.float(pair{key: p.key, keyPos: it.pos, value: it}, p.key)
		if !(w > 0) || math.IsInf(w, 0) {
			d.fail(it.pos, p.key, "weight %v: want a positive number", it.value)
		}
		out = append(out, w)
	}
	return out
}

// split gives a load service on several endpoints one share each of its split variables,
// rendering the job once per endpoint with them. A service that runs until stopped, or on one
// endpoint, or whose job has none of the variables is left as it is.
func (c *Config) split(e *engine, s *Service) error {
	if !s.Job.WaitForExit || len(s.Endpoints) < 2 {
		return nil
	}
	weights := s.Weights
	if weights == nil {
		weights = slices.Repeat([]float64{1}, len(s.Endpoints))
	}
	shares := make([]Share, len(s.Endpoints))
	for i, ep := range s.Endpoints {
		shares[i] = Share{Endpoint: ep, Weight: weights[i], Variables: map[string]int{}}
	}
	var errs []error
	split := false
	for _, name := range SplitVariables {
		total, ok := intVariable(s.Job.Variables[name])
		if !ok {
			continue
		}
		parts, err := Apportion(total, weights)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: variable %s: %w", s.where, name, err))
			continue
		}
		split = true
		for i := range shares {
			shares[i].Variables[name] = parts[i]
		}
	}
	if len(errs) > 0 || !split {
		return errors.Join(errs...)
	}
	js := script.New(io.Discard) // the shares' onConfigure output was shown for the service
	js.Set("configuration", c.root.toAny())
	for i := range shares {
		vars := newMap(Pos{File: "split"})
		for name, v := range shares[i].Variables {
			vars.set(name, vars.pos, scalar(v, vars.pos))
		}
		sh, err := c.finish(e, s.where, s.Name, s.Job.Name, s.raw.clone(), merge(s.cmdVars.clone(), vars))
		if err == nil {
			err = c.decodeService(js, &Resolved{}, &sh)
		}
		if err != nil {
			return fmt.Errorf("%s: endpoint %s's share: %w", s.where, shares[i].Endpoint, err)
		}
		shares[i].Job = sh.Job
	}
	s.Shares = shares
	return nil
}

// intVariable reads a variable as a whole number.
func intVariable(v any) (int, bool) {
	switch x := v.(type) {
	case int:
		return x, true
	case int64:
		return int(x), true
	case float64:
		if x == math.Trunc(x) {
			return int(x), true
		}
	}
	return 0, false
}

// Apportion splits total into one whole part per weight, in proportion (largest remainder: the
// parts add up to total exactly). 0 stays 0 everywhere (a rate of 0 is as fast as possible on
// each); a positive total too small to give every weight at least 1 is an error.
func Apportion(total int, weights []float64) ([]int, error) {
	parts := make([]int, len(weights))
	if total == 0 {
		return parts, nil
	}
	if total < 0 {
		return nil, fmt.Errorf("%d cannot be split: it is negative", total)
	}
	sum := 0.0
	for _, w := range weights {
		sum += w
	}
	rest := total
	frac := make([]float64, len(weights))
	for i, w := range weights {
		exact := float64(total) * w / sum
		parts[i] = int(math.Floor(exact))
		frac[i] = exact - float64(parts[i])
		rest -= parts[i]
	}
	order := make([]int, len(weights))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case frac[a] > frac[b]:
			return -1
		case frac[a] < frac[b]:
			return 1
		}
		return 0
	})
	for _, i := range order[:rest] {
		parts[i]++
	}
	for i, p := range parts {
		if p < 1 {
			return nil, fmt.Errorf("%d across %d endpoints leaves endpoint %d (weight %g) nothing: raise it to at least %d or use fewer endpoints",
				total, len(weights), i+1, weights[i], len(weights))
		}
	}
	return parts, nil
}
