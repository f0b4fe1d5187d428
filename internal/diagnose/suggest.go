package diagnose

import (
	"fmt"
	"strings"

	"github.com/crankshaft/crankshaft/internal/measure"
)

// suggest says which of the load's settings to raise when it is too light: a rate cap first when
// the load reached it; then threads when each is busy, connections while they are few, pipeline
// while it is shallow.
func suggest(l *job, th Thresholds) string {
	var note string
	if rate, ok := number(l.vars["rate"]); ok && rate > 0 {
		rps, measured := l.results[measure.RPS]
		if !measured || rps >= th.RateReached*rate {
			return fmt.Sprintf("the load is capped at %s requests/s (rate) and reached it: raise or remove the cap", n0(rate))
		}
		note = fmt.Sprintf("the rate cap (%s requests/s) was not reached (%s requests/s), so it is not the limit; ", n0(rate), n0(rps))
	}
	return note + raiseSettings(l, th)
}

// raiseSettings lists the load's settings to raise.
func raiseSettings(l *job, th Thresholds) string {
	var raise []string
	if busy := 100 * l.used / float64(max(l.threads, 1)); l.threads > 0 && busy >= th.BusyThread {
		raise = append(raise, fmt.Sprintf("threads (now %d, each %.0f %% busy)", l.threads, busy))
	}
	conns, hasConns := number(l.vars["connections"])
	if hasConns && conns < float64(th.ManyConnections) {
		raise = append(raise, fmt.Sprintf("connections (now %s)", n0(conns)))
	}
	if depth, ok := number(l.vars["pipeline"]); ok && depth < float64(th.FewPipeline) {
		raise = append(raise, fmt.Sprintf("pipeline (now %s) if the server pipelines HTTP/1.1", n0(depth)))
	}
	switch {
	case len(raise) > 0:
		return "raise " + orList(raise)
	case hasConns:
		return fmt.Sprintf("raise connections (now %s)", n0(conns))
	}
	return "raise the load's connections, pipeline or threads"
}

// orList joins "a", "b", "c" as "a, b or c".
func orList(items []string) string {
	if len(items) == 1 {
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + " or " + items[len(items)-1]
}
