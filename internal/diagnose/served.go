package diagnose

import (
	"fmt"
	"strings"

	"github.com/crankshaft/crankshaft/internal/measure"
	"github.com/crankshaft/crankshaft/internal/results"
)

// served is the cross-check of what the load counted good against what the application says it
// served: the load's requests/s less its bad share, and the servers' own
// runtime-counter/requests-per-second (the requests that reached their handlers), both means over
// the measured window.
type served struct {
	good    float64 // the loads' requests/s (http/rps/mean) less their bad responses' share, added
	rps     float64 // the loads' http/rps/mean, added
	app     float64 // the servers' runtime-counter/requests-per-second, added
	servers []*job  // the servers that report it
}

// readServed reads the cross-check's figures; ok is false when no load reports requests/s or no
// server reports the requests it served (nothing to compare: no claim either way).
func readServed(r run) (served, bool) {
	var s served
	for _, l := range r.loads {
		rps, ok := l.results[measure.RPS]
		if !ok || rps <= 0 {
			continue
		}
		s.rps += rps
		good := rps
		if reqs := l.results[measure.Requests]; reqs > 0 {
			good *= max(0, 1-l.results[measure.BadResponses]/reqs)
		}
		s.good += good
	}
	for _, j := range r.servers {
		if v, ok := j.results[measure.RequestsPerSecond]; ok {
			s.app += v
			s.servers = append(s.servers, j)
		}
	}
	return s, s.good > 0 && len(s.servers) > 0
}

// unserved: the servers that count the requests they handle served less than ServedShare of the
// requests/s the loads counted good. The load's answers were then not the application's work (a
// request it did not take: a wrong path or body; a gRPC call failed in a 200 whose status, in the
// trailers, the load tool does not read; a proxy or another server answering), and its throughput
// and latency describe them, not the server. An application serving more than the load counted
// (other clients, requests of a warm-up) is no failure: only too few served is claimed.
func unserved(r run, th Thresholds) (results.Diagnostic, bool) {
	s, ok := readServed(r)
	if !ok || s.app >= th.ServedShare*s.good {
		return results.Diagnostic{}, false
	}
	figs := []results.Figure{r.total(measure.RPS), r.total(measure.BadResponses), r.total(measure.Errors)}
	var said, errs []string
	for _, j := range s.servers {
		figs = append(figs, r.resultFig(j, measure.RequestsPerSecond))
		said = append(said, fmt.Sprintf("%s %s requests/s", j.name, n0(j.results[measure.RequestsPerSecond])))
		if e, ok := j.results[measure.ExceptionCount]; ok {
			figs = append(figs, r.resultFig(j, measure.ExceptionCount))
			errs = append(errs, j.name+" "+results.Value(measure.ExceptionCount, e))
		}
	}
	figs = append(figs, results.Figure{Name: "served share", Value: round(100 * s.app / s.good), Unit: measure.UnitPercent})
	tell := "the application's error counters (it reports none here)"
	if len(errs) > 0 {
		tell = fmt.Sprintf("the application's error counters (%s: %s)", measure.ExceptionCount, strings.Join(errs, ", "))
	}
	return results.Diagnostic{Kind: Unserved, Message: fmt.Sprintf(
		"the load counted %s good answers/s (%s %s, %s bad responses, %s socket errors) but by its own count (%s) %s: "+
			"%.0f %% of them, below %.0f %%; the load's answers were not the application's work, so their throughput and "+
			"latency describe something else. What would explain it: requests the application did not handle "+
			"(a wrong path or body), a gRPC status in the trailers the load tool does not read (h2load counts a failed "+
			"call's HTTP 200 as good), a proxy or another server answering; what would tell: %s, a load tool that reads "+
			"gRPC statuses (ghz)",
		n0(s.good), measure.RPS, n0(s.rps), n0(total(r.loads, measure.BadResponses)), n0(total(r.loads, measure.Errors)),
		measure.RequestsPerSecond, servedText(said), 100*s.app/s.good, 100*th.ServedShare, tell),
		Figures: figs}, true
}

// servedText is "application served 0 requests/s", or for several servers "proxy 10 requests/s
// and application 0 requests/s served".
func servedText(said []string) string {
	if len(said) == 1 {
		name, rate, _ := strings.Cut(said[0], " ")
		return name + " served " + rate
	}
	return strings.Join(said, " and ") + " served"
}
