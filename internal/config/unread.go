package config

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/crankshaft/crankshaft/internal/suggest"
)

// A variable the user gives that nothing reads is most often misspelt: crank ran
// `--load.variables.conections 64` for its whole duration at the default connections. Such a
// variable is said before anything starts, with the nearest name that is read, and is an error
// with --strict. The variables checked are those the user gives for this run: --variable (read by
// any service), --<service>.variables.<name> and the scenario's own service variables (read by that
// service). Job files and profiles define variables for many scenarios, and are not checked.

// given is a variable set for one service of the scenario.
type given struct {
	name  string
	where string // the option as written, or the file and line with scenario and service
	flag  bool   // given on the command line
}

// givenVariables lists the variables a scenario's service sets, then those the command line's
// overrides of that service set (--load.variables.connections 64, --load.variables connections=64).
// A service whose job the command line swaps (--application.job plaintext, to run
// aspnet/Benchmarks' scenarios on our apps) keeps its scenario's variables unchecked: they were
// written for the job the scenario names.
func givenVariables(svc pair, where string, overrides []Override) []given {
	var out []given
	if !slices.ContainsFunc(overrides, Override.isJobSwap) {
		for _, p := range svc.value.get(keyVariables).pairsOrNil() {
			out = append(out, given{name: p.key, where: fmt.Sprintf("%s: %s: variable %s", p.keyPos, where, p.key)})
		}
	}
	for _, o := range overrides {
		head, rest, _ := strings.Cut(o.Path, ".")
		if !strings.EqualFold(head, keyVariables) {
			continue
		}
		if rest == "" { // the whole mapping: NAME=VALUE
			name, _, _ := strings.Cut(o.Value, "=")
			out = append(out, given{name: name, where: o.String() + " " + o.Value, flag: true})
			continue
		}
		name, _, _ := strings.Cut(rest, ".")
		out = append(out, given{name: name, where: o.String(), flag: true})
	}
	return out
}

// unreadVariables says, for each variable given that nothing reads, where it was given and, when
// one is near, the name meant: a service's variables against what that service or a root script
// reads, --variable against what any service or a root script reads.
func unreadVariables(services []Service, cmdVars *node, scripts map[string]bool) []string {
	var out []string
	all := newReads()
	for _, s := range services {
		for _, g := range s.given {
			if s.reads.names[g.name] || scripts[g.name] {
				continue
			}
			if g.flag {
				out = append(out, fmt.Sprintf("%s: the job of service %q does not use %s%s", g.where, s.Name, g.name, nearest(g.name, s.reads.known)))
			} else {
				out = append(out, fmt.Sprintf("%s: the job does not use it%s", g.where, nearest(g.name, s.reads.known)))
			}
		}
		for n := range s.reads.names {
			all.names[n] = true
		}
		for n := range s.reads.known {
			all.known[n] = true
		}
	}
	for _, p := range cmdVars.pairsOrNil() {
		if !all.names[p.key] && !scripts[p.key] {
			out = append(out, fmt.Sprintf("--variable %s: no job of the scenario uses %s%s", p.key, p.key, nearest(p.key, all.known)))
		}
	}
	return out
}

// nearest is " (did you mean NAME?)" for the known name nearest to name, or "".
func nearest(name string, known map[string]bool) string {
	if near := suggest.Near(name, slices.Sorted(maps.Keys(known))); near != "" {
		return fmt.Sprintf(" (did you mean %s?)", near)
	}
	return ""
}

// checkUnread adds the unread variables to r's warnings or, with --strict, returns them as errors.
func (c *Config) checkUnread(r *Resolved, cmdVars *node) error {
	scripts := reads{names: map[string]bool{}}
	for _, key := range scriptRootKeys {
		eachString(c.root.get(key), scripts.script)
	}
	unread := unreadVariables(r.Services, cmdVars, scripts.names)
	if !c.strict {
		r.Warnings = append(r.Warnings, unread...)
		return nil
	}
	errs := make([]error, len(unread))
	for i, msg := range unread {
		errs[i] = &UnreadError{Msg: msg}
	}
	return errors.Join(errs...)
}

// UnreadError is a variable given for the run that nothing reads, with --strict.
type UnreadError struct {
	Msg string // the warning it would be without --strict
}

func (e *UnreadError) Error() string { return e.Msg + " (--strict)" }
