package diagnose

import (
	"fmt"

	"github.com/crankshaft/crankshaft/internal/measure"
	"github.com/crankshaft/crankshaft/internal/results"
)

// queue reads the run as a queue: throughput X (every load's requests/s), the requests in flight
// N and their response time R, which Little's law ties together (N = X·R), and the CPU the run's
// jobs spent while they were in flight.
type queue struct {
	x      float64 // requests/s, all loads added
	n      float64 // requests in flight; 0 when unknown
	nFrom  string  // how n was found, for messages
	r      float64 // response time, ms: measured mean, else N/X; 0 when unknown
	rFrom  string  // how r was found
	busy   float64 // cores the run's jobs used (servers and loads), every agent added
	hasLat bool    // r is the loads' measured mean latency
}

// readQueue is the run's queue. N is X·R when the loads measured their mean latency (it holds for
// closed and open loops alike), else the loads' connections × pipeline (a closed loop keeps them
// all in flight); R is the measured mean, else N/X.
func readQueue(r run) queue {
	q := queue{x: total(r.loads, measure.RPS)}
	for _, j := range append(known(r.servers), known(r.loads)...) {
		q.busy += j.used
	}
	if q.x <= 0 {
		return q
	}
	if lat, ok := meanLatency(r.loads); ok && lat > 0 {
		q.r, q.hasLat = lat, true
		q.rFrom = fmt.Sprintf("%s, measured", measure.LatencyMean)
		q.n = q.x * lat / 1000
		q.nFrom = fmt.Sprintf("Little's law: %s requests/s x %s ms", n0(q.x), ms(lat))
		return q
	}
	conns := 0.0
	for _, l := range r.loads {
		c, ok := number(l.vars["connections"])
		if !ok || c <= 0 {
			return q
		}
		depth, ok := number(l.vars["pipeline"])
		if !ok || depth < 1 {
			depth = 1
		}
		conns += c * depth
	}
	q.n = conns
	q.nFrom = "connections x pipeline, all in flight in a closed loop"
	q.r = 1000 * q.n / q.x
	q.rFrom = fmt.Sprintf("Little's law: %s in flight / %s requests/s", n0(q.n), n0(q.x))
	return q
}

// meanLatency is the highest of the loads' mean latencies (ms).
func meanLatency(loads []*job) (float64, bool) {
	worst, found := 0.0, false
	for _, l := range loads {
		if v, ok := l.results[measure.LatencyMean]; ok {
			worst, found = max(worst, v), true
		}
	}
	return worst, found
}

// service is the time one request takes if the server handles them one at a time: 1/X, in µs.
func (q queue) service() float64 { return 1e6 / q.x }

// idle is the share of a request's time in flight that no CPU of the run spent on it: 1 - the
// cores busy over the requests in flight.
func (q queue) idle() float64 {
	if q.n <= 0 {
		return 0
	}
	return max(0, 1-q.busy/q.n)
}

// waiting tells whether requests spend their time waiting rather than computed: at least
// QueueMin in flight, and WaitShare of their time no CPU of the run spent on them.
func (q queue) waiting(th Thresholds) bool {
	return q.x > 0 && q.n >= th.QueueMin && q.idle() >= th.WaitShare
}

// figures are what the queue's verdicts rest on.
func (q queue) figures(r run) []results.Figure {
	figs := []results.Figure{{Name: measure.RPS, Value: round(q.x), Unit: measure.UnitRPS},
		{Name: "requests in flight", Value: round(q.n), Unit: measure.UnitCount}}
	if q.hasLat {
		figs = append(figs, results.Figure{Name: measure.LatencyMean, Value: round(q.r), Unit: r.unit(measure.LatencyMean)})
	}
	return append(figs, results.Figure{Name: "waiting share", Value: round(100 * q.idle()), Unit: measure.UnitPercent},
		results.Figure{Name: "service time if one at a time", Value: round(q.service()), Unit: measure.UnitUs})
}

// text is "64 requests in flight (connections x pipeline ...) took 30.1 ms each (...)".
func (q queue) text() string {
	return fmt.Sprintf("%s requests in flight (%s) took %s ms each (%s), %.0f %% of that time on no CPU of the run",
		n1(q.n), q.nFrom, ms(q.r), q.rFrom, 100*q.idle())
}

// waitingVerdict: nothing saturated, no high contention, and requests wait. One run cannot tell a
// server that serves them one at a time (each in 1/X: more load will not help) from one that
// waits on each in parallel (a sleep, a backend, the network: more connections would do more).
func waitingVerdict(r run, q queue, main, load *job, th Thresholds) results.Diagnostic {
	figs := append(r.cpuFigs(main, load), q.figures(r)...)
	if w, ok := main.results[measure.LockContention]; ok {
		figs = append(figs, results.Figure{Service: main.name, Name: measure.LockContention, Value: round(w), Unit: r.unit(measure.LockContention)})
	}
	if c, ok := number(load.vars["connections"]); ok {
		figs = append(figs, varFig(load, "connections", c, ""))
	}
	capNote := ""
	if rate, rps, ok := rateOf(load); ok {
		figs = append(figs, varFig(load, "rate", rate, measure.UnitRPS))
		capNote = fmt.Sprintf("; the rate cap (%s requests/s) was not reached (%s requests/s), so it is not the limit", n0(rate), n0(rps))
	}
	return results.Diagnostic{Kind: Waiting, Message: fmt.Sprintf(
		"requests wait: %s, while neither side is saturated (%s: %s; %s: %s) and lock contention is not high (%s)%s: "+
			"either the server handles them one at a time, each in about %s µs (1/X), and more load will not help (serialized), "+
			"or it waits on each in parallel (a sleep, a backend, the network) and more connections would do more (the load is too light). "+
			"This run cannot tell which: a probe at twice the connections tells (requests/s flat: serialized; up: too light)%s",
		q.text(), main.name, cpuText(main), load.name, cpuText(load), lockText(main), capNote, n0(q.service()), quietNote(r)),
		Figures: figs}
}

// quietNote asks for a quiet machine when other work took a noticeable part of one (below
// machine-busy's OtherShare): it can hold a probe back as well as the run.
func quietNote(r run) string {
	for _, m := range r.machines {
		if m.outside() >= minOutside*float64(m.cores) {
			return fmt.Sprintf(", on a quiet machine (other work took %.0f %% of %s's)", 100*m.outside()/float64(m.cores), names(m.jobs))
		}
	}
	return ""
}

// ms writes milliseconds to about three significant digits: 0.12, 30.1, 452.
func ms(v float64) string {
	switch {
	case v < 10:
		return fmt.Sprintf("%.2f", v)
	case v < 100:
		return results.Format(v, "n1")
	}
	return n0(v)
}

func n1(v float64) string {
	if v < 10 {
		return fmt.Sprintf("%.1f", v)
	}
	return n0(v)
}
