package diagnose

import (
	"fmt"

	"github.com/crankshaft/crankshaft/internal/measure"
	"github.com/crankshaft/crankshaft/internal/results"
)

// threadRoom is the idle CPU, in cores, a job whose busiest thread is saturated must still have
// been able to use for that thread to be what limits it: with less, its machine does.
const threadRoom = 0.5

// threadSaturated reports whether the job's busiest thread (benchmarks/cpu/busiest-thread, the
// busiest in each sample, averaged) used at least share of a core, of what its host leaves a core.
func (j *job) threadSaturated(share float64) bool {
	return j.hasThread && j.thread >= 100*share*j.left
}

// threadFig is the job's busiest thread, as the table writes it.
func (r run) threadFig(j *job) results.Figure {
	return results.Figure{Service: j.name, Name: measure.CPUThread, Stat: statMean, Value: round(j.thread), Unit: r.unit(measure.CPUThread)}
}

// threadBound: a server whose busiest thread is saturated while the server is not, and had at
// least threadRoom cores left idle: its work is serialized on that thread, which one run shows
// without a probe. A server with one core, or whose machine is full, is left to the other rules.
func threadBound(r run, server, load []*job, th Thresholds) (results.Diagnostic, bool) {
	for _, s := range server {
		if !s.threadSaturated(th.Saturated) || s.saturated(th.Saturated) || s.cap-s.used < threadRoom {
			continue
		}
		return results.Diagnostic{Kind: Serialized, Message: fmt.Sprintf(
			"%s: one of its threads was busy %.0f %% of a core (its busiest thread, on average over the samples) while the server "+
				"used %s: its work is serialized on that thread (one event loop, a lock's holder, a single worker, or one "+
				"of several workers holding every connection); more cores will not help while the work stays there; spread "+
				"it over threads (the connections over workers: SO_REUSEPORT, an accept lock), or give that thread a faster core",
			s.name, s.thread, usage(s)),
			Figures: append(append([]results.Figure{r.threadFig(s)}, r.cpuFigs(s, load[0])...), capFigs(s)...)}, true
	}
	return results.Diagnostic{}, false
}
