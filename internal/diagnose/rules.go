package diagnose

import (
	"fmt"
	"strings"

	"github.com/crankshaft/crankshaft/internal/measure"
	"github.com/crankshaft/crankshaft/internal/results"
)

// errorBound: bad responses and socket errors of every load job, over the attempts they made.
func errorBound(r run, th Thresholds) (results.Diagnostic, bool) {
	reqs := total(r.loads, measure.Requests)
	bad := total(r.loads, measure.BadResponses)
	errs := total(r.loads, measure.Errors)
	attempts := reqs + errs
	if attempts <= 0 || bad+errs <= th.ErrorShare*attempts {
		return results.Diagnostic{}, false
	}
	return results.Diagnostic{Kind: ErrorBound, Message: fmt.Sprintf(
		"%s of %s requests failed (%.1f %%): %s bad responses (status not 2xx/3xx) and %s socket errors; "+
			"throughput and latency describe the failures",
		n0(bad+errs), n0(attempts), 100*(bad+errs)/attempts, n0(bad), n0(errs)),
		Figures: []results.Figure{
			r.total(measure.Requests), r.total(measure.BadResponses), r.total(measure.Errors),
			{Name: "failed share", Value: round(100 * (bad + errs) / attempts), Unit: measure.UnitPercent},
		}}, true
}

// machineBusy: CPU used on a machine beyond the run's jobs there, from OtherShare of it.
func machineBusy(r run, th Thresholds) []results.Diagnostic {
	var out []results.Diagnostic
	for _, m := range r.machines {
		other := m.outside()
		stolen := th.stolen(m.steal)
		if m.global <= 0 || other < th.OtherShare*float64(m.cores) {
			continue
		}
		figs := append([]results.Figure{r.globalFig(m), coresFig(m.jobs[0])}, r.cpuFigs(m.jobs...)...)
		figs = append(figs, results.Figure{Name: "outside the run", Value: round(100 * other / float64(m.cores)), Unit: measure.UnitPercent})
		msg := fmt.Sprintf("other work took %.0f %% of the machine of %s (%.1f of %s) beyond the run's %s: the machine was %.0f %% busy",
			100*other/float64(m.cores), names(m.jobs), other, plural(m.cores, "core"), cpuList(m), m.global)
		if m.steal > 0 {
			figs = append(figs, r.stealFig(m))
		}
		if stolen {
			msg += fmt.Sprintf("; its hypervisor gave %s of the machine's CPU time to other guests (steal): "+
				"the figures vary with the host's other work, not only with what was measured", results.Value(measure.CPUSteal, m.steal))
		}
		out = append(out, results.Diagnostic{Kind: MachineBusy, Message: msg +
			"; CPU figures and what limited the run cannot be trusted; run on a quiet machine", Figures: figs})
	}
	return out
}

// limit says what limited a run that neither failed, nor reached a rate cap, nor ran on a busy
// machine: the machine its jobs filled together, a saturated load generator or server, lock
// contention, else a load too light (underloaded, which a probe may turn into serialized).
func limit(r run, th Thresholds) (results.Diagnostic, bool) {
	load, server := known(r.loads), known(r.servers)
	if len(load) == 0 || len(server) == 0 {
		return results.Diagnostic{}, false
	}
	if d, ok := machineSaturated(r, th); ok {
		return d, true
	}
	main := busiest(server)
	for _, l := range load {
		if l.threadsBusy(th.Saturated) || (l.saturated(th.Saturated) && !outweighed(l, append(load, server...))) {
			return results.Diagnostic{Kind: ClientBound, Message: fmt.Sprintf(
				"%s: the load generator's CPU is saturated (%s%s) while %s uses %s: "+
					"the load generator limits the run; give it more threads or a machine of its own",
				l.name, usage(l), hotText(l), main.name, cpuText(main)),
				Figures: append(r.cpuFigs(l, main), capFigs(l)...)}, true
		}
		if l.threadSaturated(th.Saturated) && !main.saturated(th.Saturated) {
			return results.Diagnostic{Kind: ClientBound, Message: fmt.Sprintf(
				"%s: one of the load generator's threads was busy %.0f %% of a core (its busiest thread, on average over the samples; "+
					"the generator used %s%s) while %s uses %s: that thread limits the run; give the generator more threads",
				l.name, l.thread, usage(l), hotText(l), main.name, cpuText(main)),
				Figures: append(append([]results.Figure{r.threadFig(l)}, r.cpuFigs(l, main)...), capFigs(l)...)}, true
		}
	}
	for _, s := range server {
		if s.saturated(th.Saturated) {
			return results.Diagnostic{Kind: ServerBound, Message: fmt.Sprintf(
				"%s: the server's CPU is saturated (%s%s) while %s uses %s: the server limits the run",
				s.name, usage(s), hotText(s), load[0].name, cpuText(load[0])),
				Figures: append(r.cpuFigs(s, load[0]), capFigs(s)...)}, true
		}
	}
	for _, s := range server {
		if what, figs, ok := r.contended(s, th); ok {
			return results.Diagnostic{Kind: ContentionBound, Message: fmt.Sprintf(
				"%s %s while its CPU is not saturated (%s) and neither is %s's (%s): lock contention limits the run",
				s.name, what, cpuText(s), load[0].name, cpuText(load[0])),
				Figures: append(figs, r.cpuFigs(s, load[0])...)}, true
		}
	}
	if d, ok := threadBound(r, server, load, th); ok {
		return d, true
	}
	if q := readQueue(r); q.waiting(th) {
		return waitingVerdict(r, q, main, load[0], th), true
	}
	return underloaded(r, main, load[0], th), true
}

// hotText names where a saturated job's CPU went, when it was profiled (collect, goProfiles).
func hotText(j *job) string {
	if j.hot == "" {
		return ""
	}
	return "; " + j.hot
}

// machineSaturated: a machine the run's jobs share is busy to MachineFull of it, and at least two
// of them each took a noticeable part (1 - Saturated of it): they fill it together, so none of
// them alone is the limit. Below Saturated busy a probe checks it (roomLeft): a light load leaves
// the same idle CPU.
func machineSaturated(r run, th Thresholds) (results.Diagnostic, bool) {
	m, takers := filledTogether(r, th)
	if m == nil {
		return results.Diagnostic{}, false
	}
	figs := append([]results.Figure{r.globalFig(m), coresFig(m.jobs[0])}, r.cpuFigs(m.jobs...)...)
	msg := fmt.Sprintf("%s together fill the machine (%.0f %% busy, %s): %s; neither more load nor more connections can help "+
		"on this machine; give the load generator a machine of its own to find the server's limit%s",
		names(takers), m.busy(), plural(m.cores, "core"), cpuList(m), hotList(takers))
	if m.busy() < 100*th.Saturated {
		msg += "; " + roomNote
	}
	return results.Diagnostic{Kind: MachineSaturated, Message: msg, Figures: figs}, true
}

// roomNote ends a machine-saturated verdict whose machine kept idle CPU (roomLeft): the probe
// checks it, and NotProbed says when none ran.
const roomNote = "the machine kept idle CPU, as a load too light (one connection in ping-pong) leaves it too"

// filledTogether is the first machine the run's jobs fill together (machineSaturated) and the
// jobs that each took a noticeable part of it, or nil.
func filledTogether(r run, th Thresholds) (*machine, []*job) {
	for _, m := range r.machines {
		var takers []*job
		for _, j := range m.jobs {
			if j.usedOn(m.key) >= (1-th.Saturated)*float64(m.cores) {
				takers = append(takers, j)
			}
		}
		if len(takers) >= 2 && m.busy() >= 100*th.MachineFull && !apart(takers) {
			return m, takers
		}
	}
	return nil, nil
}

// roomLeft is how busy (%) the machine the run's jobs fill together was, when it was below
// Saturated of it: idle CPU left that the jobs did not take, which a light load (one connection
// in ping-pong) leaves too, so a probe at twice the connections tells the two apart. 0 when no
// machine is filled, or the one filled is fuller than that.
func roomLeft(res *results.Result, th Thresholds) float64 {
	m, _ := filledTogether(newRun(res, th), th)
	if m == nil || m.busy() >= 100*th.Saturated {
		return 0
	}
	return m.busy()
}

// hotList names where each profiled job of jobs spent its CPU ("; application: 68 % of its CPU in
// main.spin"): a machine the jobs fill together is still explained by what its biggest taker
// computes.
func hotList(jobs []*job) string {
	var b strings.Builder
	for _, j := range jobs {
		if j.hot != "" {
			fmt.Fprintf(&b, "; %s: %s", j.name, j.hot)
		}
	}
	return b.String()
}

// apart reports whether every job is pinned to a cpuSet and no two of them share a CPU: then they
// do not fill the machine together, each is limited by its own cores (which setCap takes as its
// cap), and "give the load generator a machine of its own" would be wrong advice.
func apart(jobs []*job) bool {
	seen := map[int]bool{}
	for _, j := range jobs {
		if len(j.cpus) == 0 {
			return false
		}
		for _, c := range j.cpus {
			if seen[c] {
				return false
			}
			seen[c] = true
		}
	}
	return true
}

// rateCapped: a load with a rate cap whose RPS reached RateReached of it.
func rateCapped(r run, th Thresholds) (results.Diagnostic, bool) {
	for _, l := range r.loads {
		rate, rps, ok := rateOf(l)
		if _, measured := l.results[measure.RPS]; !ok || !measured || rps < th.RateReached*rate {
			continue
		}
		return results.Diagnostic{Kind: RateCapped, Message: fmt.Sprintf(
			"%s reached its rate cap (%s of %s requests/s): the cap, not the server, limits the run; "+
				"raise or remove the rate to find the server's limit",
			l.name, n0(rps), n0(rate)),
			Figures: []results.Figure{varFig(l, "rate", rate, measure.UnitRPS), r.resultFig(l, measure.RPS)}}, true
	}
	return results.Diagnostic{}, false
}

// underloaded: nothing saturated, no contention: the load is too light, or the server serializes
// requests (which only a probe at twice the connections tells apart).
func underloaded(r run, main, load *job, th Thresholds) results.Diagnostic {
	figs := r.cpuFigs(main, load)
	if w, ok := main.results[measure.LockContention]; ok {
		figs = append(figs, results.Figure{Service: main.name, Name: measure.LockContention, Value: round(w), Unit: r.unit(measure.LockContention)})
	}
	if c, ok := number(load.vars["connections"]); ok {
		figs = append(figs, varFig(load, "connections", c, ""))
	}
	if rate, _, ok := rateOf(load); ok {
		figs = append(figs, varFig(load, "rate", rate, measure.UnitRPS), r.resultFig(load, measure.RPS))
	}
	return results.Diagnostic{Kind: Underloaded, Message: fmt.Sprintf(
		"neither side is saturated (%s: %s; %s: %s) and lock contention is not high (%s): the load is too light; %s",
		main.name, cpuText(main), load.name, cpuText(load), lockText(main), suggest(load, th)), Figures: figs}
}

// rateOf is a load's rate cap and its RPS, when it has a cap.
func rateOf(l *job) (rate, rps float64, ok bool) {
	rate, ok = number(l.vars["rate"])
	if !ok || rate <= 0 {
		return 0, 0, false
	}
	return rate, l.results[measure.RPS], true
}

// outweighed tells whether another job on j's machine used more CPU than j: on a machine they
// share, the one that takes less is not the one that fills it.
func outweighed(j *job, all []*job) bool {
	for _, p := range j.parts {
		for _, o := range all {
			if o != j && p.machine != "" && o.usedOn(p.machine) > p.used {
				return true
			}
		}
	}
	return false
}

func known(jobs []*job) []*job {
	var out []*job
	for _, j := range jobs {
		if j.known() {
			out = append(out, j)
		}
	}
	return out
}

// busiest is the job using the largest share of what it can use (the first on ties).
func busiest(jobs []*job) *job {
	b := jobs[0]
	for _, j := range jobs[1:] {
		if j.cap > 0 && b.cap > 0 && j.used/j.cap > b.used/b.cap {
			b = j
		}
	}
	return b
}

// contended says how a server's lock contention is high, if it is, with the figures.
func (r run) contended(s *job, th Thresholds) (string, []results.Figure, bool) {
	var what []string
	var figs []results.Figure
	cpuMs := s.used * 1000 // ms of CPU per second
	if w, ok := s.results[measure.LockContention]; ok && w >= th.LockWaitMin && w >= th.LockWaitPerCPU*cpuMs {
		what = append(what, fmt.Sprintf("waits %.0f ms/s on locks (%s) against %.0f ms/s of CPU", w, measure.LockContention, cpuMs))
		if s.lockSite != "" {
			what[len(what)-1] += " (" + s.lockSite + ")"
		}
		figs = append(figs, r.resultFig(s, measure.LockContention))
	}
	if c, ok := s.results[measure.MonitorLockContention]; ok && c >= th.MonitorContentions {
		what = append(what, fmt.Sprintf("meets %.0f monitor lock contentions/s (%s)", c, measure.MonitorLockContention))
		figs = append(figs, r.resultFig(s, measure.MonitorLockContention))
	}
	return strings.Join(what, " and "), figs, len(what) > 0
}

func lockText(s *job) string {
	if w, ok := s.results[measure.LockContention]; ok {
		return fmt.Sprintf("%.2f ms/s", w)
	}
	if s.noCounters != "" {
		return "not measured: " + s.noCounters
	}
	return "not measured"
}

func n0(v float64) string { return results.Format(v, "n0") }

// Stolen is the highest mean steal (benchmarks/cpu/steal) of the run's jobs' machines, and whether
// it reaches th.StealShare: the rule by which machine-busy names the steal, and by which crank
// bisect runs a disturbed iteration again.
func Stolen(res *results.Result, th Thresholds) (float64, bool) {
	worst := 0.0
	for _, jr := range res.JobResults.Jobs {
		if v, ok := results.MeasuredMean(jr, measure.CPUSteal); ok {
			worst = max(worst, v)
		}
	}
	return worst, th.stolen(worst)
}

// stolen tells whether a machine's mean steal (%) reaches StealShare.
func (th Thresholds) stolen(steal float64) bool { return steal >= 100*th.StealShare }
