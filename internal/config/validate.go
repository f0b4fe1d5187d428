package config

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Root keys of a configuration file.
const (
	keyImports   = "imports"
	keyVariables = "variables"
	keyJobs      = "jobs"
	keyScenarios = "scenarios"
	keyProfiles  = "profiles"
)

// scriptRootKeys are crank's root keys for JavaScript run after a run (see Scripts).
var scriptRootKeys = []string{"results", "scripts", "defaultScripts", "onResultsCreating", "onResultsCreated"}

// rootRefusals are crank's root keys this platform does not carry out.
var rootRefusals = map[string]refusal{
	"counters": {"crank's .NET event counter lists need the .NET runtime; map Prometheus metrics with a job's counters", false},
	"commands": {"controller-side commands are not available; run them before crank", true},
}

// validate checks the shape of the merged configuration: what Resolve relies on. Keys inside
// jobs are checked by Resolve, after merging and rendering, for the services it resolves.
func (c *Config) validate() error {
	var errs []error
	for _, p := range c.root.pairs {
		switch {
		case slices.Contains([]string{keyVariables, keyJobs, keyScenarios, keyProfiles}, p.key):
			if !p.value.isNull() && !p.value.isMap() {
				errs = append(errs, fmt.Errorf("%s: %s must be a mapping", p.keyPos, p.key))
			}
		case canonical(p.key, scriptRootKeys) != "":
		default:
			if name, _, ok := lookupRefusal(rootRefusals, p.key); ok {
				// counters: crank's own default configuration defines them for every run; they
				// only matter to a job that asks for .NET counters, which is refused.
				c.notes = append(c.notes, fmt.Sprintf("%s: crank's %s has no effect here: %s", p.keyPos, name, rootRefusals[name].hint))
				continue
			}
			msg := fmt.Sprintf("%s: unknown root key %q, not used (want imports, variables, jobs, scenarios, profiles, or crank's %s)%s",
				p.keyPos, p.key, strings.Join(scriptRootKeys, ", "), didYouMean(p.key, []string{keyVariables, keyJobs, keyScenarios, keyProfiles}, scriptRootKeys))
			if c.strict {
				errs = append(errs, fmt.Errorf("%s (--strict)", msg))
			} else {
				c.warns = append(c.warns, msg)
			}
		}
	}
	if _, err := c.Scripts(); err != nil {
		errs = append(errs, err)
	}
	errs = append(errs, c.validateJobs()...)
	errs = append(errs, c.validateScenarios()...)
	errs = append(errs, c.validateProfiles()...)
	return errors.Join(errs...)
}

func (c *Config) section(key string) *node {
	if n := c.root.get(key); n.isMap() {
		return n
	}
	return newMap(Pos{})
}

func (c *Config) validateJobs() []error {
	var errs []error
	for _, j := range c.section(keyJobs).pairs {
		if !j.value.isMap() {
			errs = append(errs, fmt.Errorf("%s: job %q must be a mapping", j.keyPos, j.key))
			continue
		}
		errs = append(errs, mustMap(j.value, keyVariables, fmt.Sprintf("job %q", j.key))...)
	}
	return errs
}

func (c *Config) validateScenarios() []error {
	var errs []error
	for _, s := range c.section(keyScenarios).pairs {
		if !s.value.isMap() || len(s.value.pairs) == 0 {
			errs = append(errs, fmt.Errorf("%s: scenario %q must map service names to jobs", s.keyPos, s.key))
			continue
		}
		for _, svc := range s.value.pairs {
			if svc.key == keySweep {
				_, sErrs := decodeSweep(s.key, svc)
				errs = append(errs, sErrs...)
				continue
			}
			if svc.key == keyCapacity {
				_, cErrs := decodeCapacity(s.key, svc)
				errs = append(errs, cErrs...)
				continue
			}
			where := fmt.Sprintf("scenario %q: service %q", s.key, svc.key)
			if !svc.value.isMap() {
				errs = append(errs, fmt.Errorf("%s: %s must be a mapping with a job key", svc.keyPos, where))
				continue
			}
			if name, ok := svc.value.get("job").str(); !ok || name == "" {
				errs = append(errs, fmt.Errorf("%s: %s has no job (the name of a job under jobs:)", svc.keyPos, where))
			}
			errs = append(errs, mustMap(svc.value, keyVariables, where)...)
		}
	}
	return errs
}

func (c *Config) validateProfiles() []error {
	var errs []error
	for _, p := range c.section(keyProfiles).pairs {
		where := fmt.Sprintf("profile %q", p.key)
		if !p.value.isMap() {
			errs = append(errs, fmt.Errorf("%s: %s must be a mapping", p.keyPos, where))
			continue
		}
		errs = append(errs, mustMap(p.value, keyVariables, where)...)
		for _, group := range []string{"jobs", "agents"} {
			g := p.value.get(group)
			if g.isNull() {
				continue
			}
			if !g.isMap() {
				errs = append(errs, fmt.Errorf("%s: %s: %s must map service names to settings", g.pos, where, group))
				continue
			}
			for _, e := range g.pairs {
				errs = append(errs, validateEntry(e, fmt.Sprintf("%s: %s %q", where, group, e.key))...)
			}
		}
	}
	return errs
}

func validateEntry(e pair, where string) []error {
	if e.value.isNull() {
		return nil
	}
	if !e.value.isMap() {
		return []error{fmt.Errorf("%s: %s must be a mapping", e.keyPos, where)}
	}
	errs := mustMap(e.value, keyVariables, where)
	for _, p := range e.value.pairs {
		if p.key == "aliases" || p.key == "endpoints" {
			errs = append(errs, mustStrings(e.value, p.key, where)...)
		}
	}
	return errs
}

func mustMap(n *node, key, where string) []error {
	if v := n.get(key); !v.isNull() && !v.isMap() {
		return []error{fmt.Errorf("%s: %s: %s must be a mapping", v.pos, where, key)}
	}
	return nil
}

func mustStrings(n *node, key, where string) []error {
	v := n.get(key)
	if v.isNull() {
		return nil
	}
	if !v.isList() {
		return []error{fmt.Errorf("%s: %s: %s must be a list", v.pos, where, key)}
	}
	var errs []error
	for _, it := range v.items {
		if _, ok := it.str(); !ok {
			errs = append(errs, fmt.Errorf("%s: %s: %s must hold strings", it.pos, where, key))
		}
	}
	return errs
}
