// Package profiler records a running job's profiles over a window the controller opens and closes:
// perf's CPU samples of its processes (crank's collect) and the Go profiles its /debug/pprof
// serves (goProfiles). Every profile comes out in the pprof format.
package profiler

import (
	"fmt"
	"strconv"
	"strings"
)

// PerfArgs are perf record's options that crank's collectArguments choose.
type PerfArgs struct {
	// Frequency is the sampling frequency in Hz (perf -F).
	Frequency int
	// CallGraph is how stacks are walked: "fp" (frame pointers) or "dwarf" (perf --call-graph).
	CallGraph string
}

// DefaultPerfArgs: perf's own 99 Hz, off the beat of timers at round frequencies, and frame pointers.
var DefaultPerfArgs = PerfArgs{Frequency: 99, CallGraph: "fp"}

// MaxFrequency bounds collectArguments' frequency.
const MaxFrequency = 10000

// ParseCollectArguments reads crank's collectArguments, here "frequency=N;callGraph=fp|dwarf"
// (pairs separated by ';' or spaces, keys ignoring case).
func ParseCollectArguments(s string) (PerfArgs, error) {
	a := DefaultPerfArgs
	for _, kv := range strings.FieldsFunc(s, func(r rune) bool { return r == ';' || r == ' ' }) {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return a, fmt.Errorf("collectArguments: %q: want key=value (frequency, callGraph)", kv)
		}
		switch strings.ToLower(k) {
		case "frequency":
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 || n > MaxFrequency {
				return a, fmt.Errorf("collectArguments: frequency %q: want 1 to %d (Hz)", v, MaxFrequency)
			}
			a.Frequency = n
		case "callgraph":
			if v != "fp" && v != "dwarf" {
				return a, fmt.Errorf("collectArguments: callGraph %q: want fp or dwarf", v)
			}
			a.CallGraph = v
		default:
			return a, fmt.Errorf("collectArguments: %q is not known here (frequency, callGraph; crank's PerfCollect options are not carried out)", k)
		}
	}
	return a, nil
}

// args are perf record's arguments for these options, recording pids into out.
func (a PerfArgs) args(out string, pids []int) []string {
	ps := make([]string, len(pids))
	for i, p := range pids {
		ps[i] = strconv.Itoa(p)
	}
	// -k realtime: samples are stamped in Unix time, so the profile says which part of the load's
	// run it covers (its first sample to perf's stop; see perfRun.profile).
	return []string{"record", "-q", "-N", "-k", "realtime", "-e", "cpu-clock", "-F", strconv.Itoa(a.Frequency),
		"--call-graph", a.CallGraph, "-o", out, "-p", strings.Join(ps, ",")}
}
