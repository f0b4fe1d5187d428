package diagnose

import (
	"fmt"
	"slices"

	"github.com/crankshaft/crankshaft/internal/measure"
	"github.com/crankshaft/crankshaft/internal/results"
)

// statProbe marks a figure of the probe's run.
const statProbe = "probe"

// ProbeSkip says why a short run at twice the connections cannot change the verdict, or "" when
// it can: only underloaded and waiting can turn into serialized (or waiting into underloaded),
// and only when the load can gain ProbeGain (a rate cap close above the RPS keeps it where it
// is). A failed run, a busy or saturated machine, a reached rate cap, a saturated side or high
// lock contention already say what limited the run.
func ProbeSkip(res *results.Result, diags []results.Diagnostic, th Thresholds) string {
	if len(diags) == 0 {
		return "the run has no verdict to check (no load job, or no CPU figures)"
	}
	if behind := results.FellBehind(res.JobResults.Jobs); len(behind) > 0 {
		return "a load generator fell behind its rate: the run is invalid, and a probe beside it would be too"
	}
	switch v := diags[0]; v.Kind {
	case Underloaded, Waiting:
	case ErrorBound:
		return "the run failed: its figures describe the failures"
	case Unserved:
		return "the application did not serve the load's answers: a probe would measure the same answers"
	case MachineBusy:
		return "the machine was busy: a probe would be as unreliable as the run"
	case MachineSaturated:
		return "the machine was saturated: more connections cannot get more from it"
	case RateCapped:
		return "the load reached its rate cap: twice the connections keep the same rate"
	default:
		return "the verdict (" + v.Kind + ") rests on figures a probe does not change"
	}
	r := newRun(res, th)
	for _, l := range known(r.loads) {
		if rate, rps, ok := rateOf(l); ok && rate < (1+th.ProbeGain)*rps {
			return fmt.Sprintf("%s's rate cap (%s requests/s) leaves less than %.0f %% above its %s requests/s: a probe could not show a gain",
				l.name, n0(rate), 100*th.ProbeGain, n0(rps))
		}
	}
	return ""
}

// Probe folds a short run at twice the connections (probe) into the verdict of the run it checks
// (res, diagnosed as diags). An underloaded or waiting verdict becomes serialized when the RPS
// rose by less than th.ProbeGain while the probe's run itself saturated nothing (the server
// handles requests one or a few at a time whatever the load), even when other work kept the
// probe's machine busy, as long as it left the machine below MachineFull (the jobs had idle CPU
// to take and did not). It becomes (or stays) underloaded, with the probe's figures, when the RPS
// rose by th.ProbeRise (even on a busy machine: other work only holds a probe back), rose by
// th.ProbeGain up to the load's rate cap, or the probe's run saturated something. A gain between
// the two, a probe that did not run at twice the connections, failed, or stayed flat on a full
// busy machine concludes nothing, and the verdict keeps its kind and says so. Any other verdict (a probe forced by
// --probe) keeps its kind and gains the probe's figures.
func Probe(diags []results.Diagnostic, res, probe *results.Result, th Thresholds) []results.Diagnostic {
	if len(diags) == 0 || probe == nil {
		return diags
	}
	out := slices.Clone(diags)
	v := &out[0]
	v.Figures = slices.Clone(v.Figures)
	conns, svc := connections(res)
	probed, _ := connections(probe)
	base, after := totalRPS(res), totalRPS(probe)
	v.Figures = appendNew(v.Figures, results.Figure{Name: measure.RPS, Value: round(base), Unit: measure.UnitRPS},
		results.Figure{Service: svc, Name: "variables/connections", Stat: statProbe, Value: probed},
		results.Figure{Name: measure.RPS, Stat: statProbe, Value: round(after), Unit: measure.UnitRPS})
	if conns <= 0 || probed != 2*conns {
		v.Message += fmt.Sprintf(" (a short probe run meant to double the connections ran at %s instead of %s: it concludes nothing)",
			n0(probed), n0(2*conns))
		return out
	}
	gain := 0.0
	if base > 0 {
		gain = after/base - 1
	}
	v.Figures = append(v.Figures, results.Figure{Name: "probe gain", Value: round(100 * gain), Unit: measure.UnitPercent})
	seen := fmt.Sprintf("%s -> %s connections: %s -> %s requests/s, %+.0f %%", n0(conns), n0(probed), n0(base), n0(after), 100*gain)
	rise := none
	switch {
	case base > 0 && gain >= th.ProbeRise:
		rise = rose
	case base > 0 && gain >= th.ProbeGain:
		rise = between
	}
	fold(v, res, probe, seen, rise, th)
	return out
}

// The probe's RPS against its run's: flat (below ProbeGain, or no RPS to compare), rose (by
// ProbeRise at least) or between the two.
const (
	none = iota
	between
	rose
)

// fold turns the verdict v by what the probe saw (rise: none, between or rose).
func fold(v *results.Diagnostic, res, probe *results.Result, seen string, rise int, th Thresholds) {
	pv := Diagnose(probe, th)
	pkind := ""
	if len(pv) > 0 {
		pkind = pv[0].Kind
	}
	switch {
	case pkind == ErrorBound || pkind == Unserved:
		v.Message += fmt.Sprintf(" (a short probe run: %s, but the probe's run failed (%s): it concludes nothing)", seen, pkind)
	case v.Kind != Underloaded && v.Kind != Waiting:
		v.Message += fmt.Sprintf(" (a short probe run, forced by --probe: %s)", seen)
	case rise == rose && pkind == MachineBusy:
		// Other work can only hold the probe back: a gain stands even on a busy machine.
		toUnderloaded(v, res, th, fmt.Sprintf(" (checked by a short probe run: %s, on a machine other work kept busy)", seen))
	case rise == rose:
		toUnderloaded(v, res, th, fmt.Sprintf(" (checked by a short probe run: %s)", seen))
	case rise == between && pkind == RateCapped:
		// The probe's gain stopped at the load's own cap, not at the server.
		toUnderloaded(v, res, th, fmt.Sprintf(" (checked by a short probe run: %s, up to the load's rate cap)", seen))
	case pkind == MachineBusy && full(probe, th):
		v.Message += fmt.Sprintf(" (a short probe run: %s, but other work filled the probe's machine: it concludes nothing; "+
			"run the probe on a quiet machine)", seen)
	case slices.Contains([]string{MachineSaturated, ClientBound, ServerBound, ContentionBound}, pkind):
		toUnderloaded(v, res, th, fmt.Sprintf(" (checked by a short probe run: %s, where the run was %s: the load was too light)", seen, pkind))
	case rise == between:
		// Twice the requests in flight did neither about twice the work (a load too light) nor
		// the same (one at a time): a server that handles a few at a time, or a probe that
		// differs from its run by more than noise. A guess either way could send the user the
		// wrong way; say what would tell.
		v.Message += fmt.Sprintf(" (a short probe run: %s: more than the %.0f %% of a server that handles requests one at a time, "+
			"less than the %.0f %% of a load too light: it cannot tell; a longer run at both connections, or a probe at four times "+
			"the connections, tells)", seen, 100*th.ProbeGain, 100*th.ProbeRise)
	case pkind != Underloaded && pkind != Waiting && pkind != MachineBusy && pkind != "":
		v.Message += fmt.Sprintf(" (a short probe run: %s, where the run was %s: it concludes nothing)", seen, pkind)
	default:
		serialized(v, res, seen, pkind == MachineBusy, th)
	}
}

// toUnderloaded makes v the run's underloaded verdict (a waiting one gains underloaded's advice),
// keeping v's figures, and adds what the probe saw.
func toUnderloaded(v *results.Diagnostic, res *results.Result, th Thresholds, note string) {
	if v.Kind == Waiting {
		r := newRun(res, th)
		u := underloaded(r, busiest(known(r.servers)), known(r.loads)[0], th)
		v.Kind, v.Message, v.Figures = Underloaded, u.Message, appendNew(u.Figures, v.Figures...)
	}
	v.Message += note
}

// serialized makes v the serialized verdict, with the service time the run's throughput implies.
func serialized(v *results.Diagnostic, res *results.Result, seen string, busy bool, th Thresholds) {
	r := newRun(res, th)
	q := readQueue(r)
	main, load := busiest(known(r.servers)), known(r.loads)[0]
	where := ""
	if busy {
		where = ", on a machine other work kept busy but not full: the jobs had idle CPU to take and did not"
	}
	*v = results.Diagnostic{Kind: Serialized, Message: fmt.Sprintf(
		"requests per second stayed flat when the connections doubled (%s, a short probe run%s) while neither side is saturated "+
			"(%s: %s; %s: %s): the server handles requests one or a few at a time (a lock, a one-slot channel, "+
			"a single worker or connection to a backend), each in about %s µs (1/X at %s requests/s); more load will not help",
		seen, where, main.name, cpuText(main), load.name, cpuText(load), n0(q.service()), n0(q.x)),
		Figures: appendNew(v.Figures, results.Figure{Name: "service time if one at a time", Value: round(q.service()), Unit: measure.UnitUs})}
}

// full tells whether one of the run's machines was at least MachineFull busy.
func full(res *results.Result, th Thresholds) bool {
	for _, m := range newRun(res, th).machines {
		if m.busy() >= 100*th.MachineFull {
			return true
		}
	}
	return false
}

// appendNew appends the figures figs lacks (same service, name and stat).
func appendNew(figs []results.Figure, more ...results.Figure) []results.Figure {
	for _, f := range more {
		if !slices.ContainsFunc(figs, func(g results.Figure) bool {
			return g.Service == f.Service && g.Name == f.Name && g.Stat == f.Stat
		}) {
			figs = append(figs, f)
		}
	}
	return figs
}

// NotProbed says, in an underloaded or waiting verdict, that no probe checked it and why: a
// server that handles requests one at a time looks the same in the CPU figures. Other verdicts
// are returned as they are.
func NotProbed(diags []results.Diagnostic, why string) []results.Diagnostic {
	if len(diags) == 0 || (diags[0].Kind != Underloaded && diags[0].Kind != Waiting) {
		return diags
	}
	out := slices.Clone(diags)
	if out[0].Kind == Waiting {
		out[0].Message += " (no probe ran: " + why + ")"
		return out
	}
	out[0].Message += " (not checked by a probe at twice the connections: " + why +
		"; a server that handles requests one at a time would look the same)"
	return out
}

// connections is the first load job's connections variable (jobs in name order), and its name.
func connections(res *results.Result) (float64, string) {
	r := newRun(res, Thresholds{})
	for _, l := range r.loads {
		if c, ok := number(l.vars["connections"]); ok && c > 0 {
			return c, l.name
		}
	}
	return 0, ""
}

func totalRPS(res *results.Result) float64 {
	if res == nil {
		return 0
	}
	var s float64
	for _, jr := range res.JobResults.Jobs {
		if jr != nil {
			s += jr.Results[measure.RPS]
		}
	}
	return s
}
