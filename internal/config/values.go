package config

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/crankshaft/crankshaft/internal/api"
)

// Load settings checked before anything starts: a value that would make a run meaningless or
// hang (a negative duration, zero connections) is an error naming the variable and where it was
// set. Values that are not numbers are left to the templates that use them.
var (
	positiveVariables = []string{"duration", "connections", "threads"}
	// pipeline 0 is crank's "no pipelining" (aspnet/Benchmarks' connectionclose scenarios).
	nonNegativeVariables = []string{"warmup", "rate", "pipeline"}
)

// checkValues checks the load settings among a service's rendered variables.
func checkValues(vars, cmdVars *node, where string) []error {
	var errs []error
	for _, p := range vars.pairs {
		positive := slices.Contains(positiveVariables, p.key)
		if !positive && !slices.Contains(nonNegativeVariables, p.key) {
			continue
		}
		v, ok := numberOf(p.value)
		if !ok {
			continue
		}
		if v < 0 || (positive && v == 0) {
			want := "a positive number"
			if !positive {
				want = "0 or more"
			}
			if cmdVars.get(p.key) != nil { // the same for every service: said once
				errs = append(errs, fmt.Errorf("--variable %s=%s: want %s", p.key, scalarText(p.value.value), want))
				continue
			}
			errs = append(errs, fmt.Errorf("%s: %s: variable %s = %s: want %s", p.keyPos, where, p.key, scalarText(p.value.value), want))
		}
	}
	return errs
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

// usedVariables adds to used the variables a job declares or its templates (and its variables'
// templates) mention.
func usedVariables(job, vars *node, used map[string]bool) {
	for _, p := range vars.pairs {
		used[p.key] = true
	}
	var srcs []string
	collectStrings(job, &srcs)
	collectStrings(vars, &srcs) // variables made of others: serverUri: http://{{serverAddress}}
	for _, s := range srcs {
		for _, r := range references(s) {
			used[r] = true
		}
	}
}

// unusedVariables warns about command-line variables that no service of the scenario uses.
func unusedVariables(cmdVars *node, used map[string]bool) []string {
	var known []string
	for k := range used {
		known = append(known, k)
	}
	slices.Sort(known)
	var out []string
	for _, p := range cmdVars.pairs {
		if used[p.key] {
			continue
		}
		msg := fmt.Sprintf("--variable %s: no job of the scenario uses %s", p.key, p.key)
		if near := closest(p.key, known); near != "" {
			msg += fmt.Sprintf(" (did you mean %s?)", near)
		}
		out = append(out, msg)
	}
	return out
}

// closest is the known name nearest to s (edit distance at most a third of its length, at least
// 2), or "".
func closest(s string, known []string) string {
	best, bestD := "", max(2, len(s)/3)+1
	for _, k := range known {
		if d := editDistance(strings.ToLower(s), strings.ToLower(k)); d < bestD {
			best, bestD = k, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance of a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
