package config

import (
	"errors"
	"fmt"

	"github.com/crankshaft/crankshaft/internal/loadtool"
)

// checkLoadTools refuses, before anything starts, a setting a load's tool cannot honour (wrk
// given a rate ran a closed loop at full speed, and the verdict read "rate-capped"), naming the
// tools that can (internal/loadtool's table). The values checked are the job's resolved variables,
// wherever they were set; a neutral value (rate 0, pipeline 1, streams 1) asks nothing.
//
// Two cases are said as warnings instead: a setting that changes only the tool's own resources
// (bombardier's threads: it runs on every core), and, on a service whose job the command line
// swapped (`--load.job bombardier` on the plaintext scenario), a setting the scenario wrote for the
// job it names (wrk's pipeline 16) that the command line does not give again: as the check of
// unread variables does, such a run keeps the scenario's variables and says what it cannot do.
func checkLoadTools(r *Resolved, cmdVars *node) error {
	var errs []error
	for _, s := range r.Services {
		if !s.Job.WaitForExit {
			continue
		}
		for _, p := range loadtool.Check(s.Job.Parser, s.Job.Executable, s.Job.Variables) {
			msg := fmt.Sprintf("service %q (job %q): %s", s.Name, s.Job.Name, p)
			if where := givenWhere(s.given, p.Setting); where != "" {
				msg = where + ": " + msg
			}
			fromSwap := s.swapped && !onCommandLine(s.given, cmdVars, p.Setting)
			if fromSwap && p.Refused {
				msg += fmt.Sprintf("; not refused: the scenario sets it for the job it names, which --%s.job replaced, so this run does not use it", s.Name)
			}
			if !p.Refused || fromSwap {
				r.Warnings = append(r.Warnings, msg)
				continue
			}
			errs = append(errs, &ToolError{Msg: msg, Service: s.Name, Setting: p.Setting})
		}
	}
	return errors.Join(errs...)
}

// givenWhere is where the scenario or the command line gave the service a variable (the last
// place), or "".
func givenWhere(gs []given, name string) string {
	where := ""
	for _, g := range gs {
		if g.name == name {
			where = g.where
		}
	}
	return where
}

// onCommandLine tells whether the command line gives the variable: --variable, or an override of
// the service's variables.
func onCommandLine(gs []given, cmdVars *node, name string) bool {
	if cmdVars.get(name) != nil {
		return true
	}
	for _, g := range gs {
		if g.flag && g.name == name {
			return true
		}
	}
	return false
}

// ToolError is a setting a load's tool cannot honour.
type ToolError struct {
	Msg              string
	Service, Setting string
}

func (e *ToolError) Error() string { return e.Msg }
