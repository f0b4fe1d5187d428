package config

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/crankshaft/crankshaft/internal/api"
)

// Load settings checked before anything starts: the variables the load jobs' templates use as
// numbers must be numbers (a value such as "3s" would render wrk's "-d 3ss" and fail only after the
// app was built and warmed up), whole numbers where they count, and not make a run meaningless or
// hang (a negative duration, zero connections). Each error names the variable and where it was set.
var (
	positiveVariables = []string{"duration", "connections", "threads"}
	// pipeline 0 is crank's "no pipelining" (aspnet/Benchmarks' connectionclose scenarios).
	nonNegativeVariables = []string{"warmup", "rate", "pipeline"}
	// wholeVariables count things: 2.5 connections is a typing mistake.
	wholeVariables = []string{"connections", "threads", "pipeline"}
	// secondsVariables are seconds to which the jobs' templates add the unit ("-d {{duration}}s").
	secondsVariables = []string{"duration", "warmup"}
)

// checkValues checks the load settings among a service's rendered variables.
func checkValues(vars, cmdVars *node, where string) []error {
	var errs []error
	for _, p := range vars.pairs {
		positive := slices.Contains(positiveVariables, p.key)
		if !positive && !slices.Contains(nonNegativeVariables, p.key) {
			continue
		}
		if want := badValue(p.key, p.value, positive); want != "" {
			if cmdVars.get(p.key) != nil { // the same for every service: said once
				errs = append(errs, fmt.Errorf("--variable %s=%s: want %s", p.key, valueText(p.value), want))
				continue
			}
			errs = append(errs, fmt.Errorf("%s: %s: variable %s = %s: want %s", p.keyPos, where, p.key, valueText(p.value), want))
		}
	}
	return errs
}

// valueText shows a value in an error: a scalar as written, a list or a map as such.
func valueText(n *node) string {
	switch {
	case n.isList():
		return "(a list)"
	case n.isMap():
		return "(a map)"
	}
	return scalarText(n.value)
}

// badValue says what a load setting should be when its value is not that, else "". An empty
// value is left alone (unset: the job's template decides).
func badValue(name string, n *node, positive bool) string {
	if n == nil || (!n.isMap() && !n.isList() && (n.value == nil || n.value == "")) {
		return ""
	}
	kind := "a number"
	switch {
	case slices.Contains(wholeVariables, name):
		kind = "a whole number"
	case slices.Contains(secondsVariables, name):
		kind = "a number of seconds, without a unit (the jobs add it)"
	}
	v, ok := api.Number(n.value)
	if n.isMap() || n.isList() || !ok {
		return kind
	}
	switch {
	case kind == "a whole number" && v != math.Trunc(v):
		return kind
	case positive && v <= 0:
		return "a positive number"
	case v < 0:
		return "0 or more"
	}
	return ""
}

// numberOf reads a scalar as a number of seconds or a count: 15, "15", "15s", "1m".
func numberOf(n *node) (float64, bool) {
	if n == nil || n.isMap() || n.isList() {
		return 0, false
	}
	if f, ok := api.Number(n.value); ok {
		return f, true
	}
	if s, ok := n.value.(string); ok {
		if d, err := time.ParseDuration(strings.TrimSpace(s)); err == nil {
			return d.Seconds(), true
		}
	}
	return 0, false
}

// Default timeouts of a load job (waitForExit) that sets none, so a stuck tool cannot hang the run:
// its warmup and duration variables plus TimeoutMargin, or NoDurationTimeout without a duration.
const (
	TimeoutMargin     = 60 * time.Second
	NoDurationTimeout = 30 * time.Minute
)

// defaultTimeout sets a waitForExit job's timeout when it has none.
func defaultTimeout(j *api.Job, vars *node) {
	if !j.WaitForExit || j.Timeout > 0 {
		return
	}
	d, ok := numberOf(vars.get("duration"))
	if !ok {
		j.Timeout = api.Duration(NoDurationTimeout)
		return
	}
	w, _ := numberOf(vars.get("warmup"))
	j.Timeout = api.Duration(time.Duration((max(d, 0)+max(w, 0))*float64(time.Second)) + TimeoutMargin)
}
