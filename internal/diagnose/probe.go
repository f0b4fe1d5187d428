package diagnose

import (
	"fmt"
	"slices"
	"strings"

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
		if roomLeft(res, th) == 0 {
			return "the machine was saturated: more connections cannot get more from it"
		}
	case RateCapped:
		return "the load reached its rate cap: twice the connections keep the same rate"
	default:
		return "the verdict (" + v.Kind + ") rests on figures a probe does not change"
	}
	return rateRoom(res, th)
}

// rateRoom says why a load's rate cap leaves less than th.ProbeGain above its RPS, so that twice
// the connections could not show a gain, or "" when every cap leaves room.
func rateRoom(res *results.Result, th Thresholds) string {
	r := newRun(res, th)
	for _, l := range known(r.loads) {
		if rate, rps, ok := rateOf(l); ok && rate < (1+th.ProbeGain)*rps {
			return fmt.Sprintf("%s's rate cap (%s requests/s) leaves less than %.0f %% above its %s requests/s: a probe could not show a gain",
				l.name, n0(rate), 100*th.ProbeGain, n0(rps))
		}
	}
	return ""
}

// Probe folds short runs at twice the connections (probes, in the order they ran: the first at
// twice the run's connections, each next one at twice the one before) into the verdict of the run
// they check (res, diagnosed as diags). Each probe is compared with the run before it (res, then
// the previous probe), and the last comparison decides; the ones before it are said. An
// underloaded or waiting verdict becomes serialized when the RPS rose by less than th.ProbeGain
// while the probe's run itself saturated nothing (the server handles requests one or a few at a
// time whatever the load), even when other work kept the probe's machine busy, as long as it
// left the machine below MachineFull (the jobs had idle CPU to take and did not). It becomes (or
// stays) underloaded, with the probe's figures, when the RPS rose by th.ProbeRise (even on a
// busy machine: other work only holds a probe back), rose by th.ProbeGain up to the load's rate
// cap, or the probe's run saturated something. A gain between the two (ProbeAgain says when a
// second probe can still tell), a probe that did not run at twice the connections, failed, or
// stayed flat on a full busy machine concludes nothing, and the verdict keeps its kind and says
// so. Any other verdict (a probe forced by --probe) keeps its kind and gains the probe's figures.
func Probe(diags []results.Diagnostic, res *results.Result, th Thresholds, probes ...*results.Result) []results.Diagnostic {
	if len(diags) == 0 || len(probes) == 0 || slices.Contains(probes, nil) {
		return diags
	}
	out := slices.Clone(diags)
	v := &out[0]
	v.Figures = slices.Clone(v.Figures)
	s := step(res, probes)
	v.Figures = appendNew(v.Figures, s.figures...)
	if !s.doubled {
		v.Message += fmt.Sprintf(" (a short probe run meant to double the connections ran at %s instead of %s: it concludes nothing)",
			n0(s.probed), n0(2*s.conns))
		return out
	}
	o, pkind := outcome(v.Kind, s, th)
	if o == again && len(probes) > 1 {
		o = unsure
	}
	fold(v, res, s, o, pkind, th)
	return out
}

// ProbeAgain tells whether a short run at twice the connections of the last of probes can still
// tell what they could not: the last one's gain lies between th.ProbeGain and th.ProbeRise, it was
// the first probe, and no rate cap stops a second one from showing a gain. Both short runs have
// the same warm-up and duration, so the second compares like with like: a server that handles a
// few requests at a time (or a first probe that differed from its longer run by more than noise)
// stays flat from the first to the second, one that waits on them in parallel gains again.
func ProbeAgain(diags []results.Diagnostic, res *results.Result, th Thresholds, probes ...*results.Result) bool {
	if len(diags) != 0 && len(probes) == 1 && probes[0] != nil {
		s := step(res, probes)
		if o, _ := outcome(diags[0].Kind, s, th); s.doubled && o == again {
			return len(results.FellBehind(probes[0].JobResults.Jobs)) == 0 && rateRoom(probes[0], th) == ""
		}
	}
	return false
}

// probeStep is the last of a chain of probes against the run before it: their connections,
// requests/s and gains, said as seen and as figures.
type probeStep struct {
	before, probe   *results.Result
	conns, probed   float64
	gain            float64
	best            float64 // the most requests/s of the run and its probes
	doubled, second bool
	seen            string
	figures         []results.Figure
}

func step(res *results.Result, probes []*results.Result) probeStep {
	conns, svc := connections(res)
	runs := append([]*results.Result{res}, probes...)
	s := probeStep{before: runs[len(runs)-2], probe: runs[len(runs)-1], second: len(probes) > 1}
	s.conns, _ = connections(s.before)
	s.probed, _ = connections(s.probe)
	s.figures = []results.Figure{{Name: measure.RPS, Value: round(totalRPS(res)), Unit: measure.UnitRPS}}
	chain, rps, gains := []string{n0(conns)}, []string{n0(totalRPS(res))}, []string{}
	s.best = totalRPS(res)
	for i, p := range probes {
		stat := statProbe
		if i > 0 {
			stat = fmt.Sprintf("%s %d", statProbe, i+1)
		}
		c, _ := connections(p)
		before, _ := connections(runs[i])
		g := gainOf(totalRPS(runs[i]), totalRPS(p))
		s.best = max(s.best, totalRPS(p))
		chain, rps, gains = append(chain, n0(c)), append(rps, n0(totalRPS(p))), append(gains, fmt.Sprintf("%+.0f %%", 100*g))
		s.figures = append(s.figures,
			results.Figure{Service: svc, Name: "variables/connections", Stat: stat, Value: c},
			results.Figure{Name: measure.RPS, Stat: stat, Value: round(totalRPS(p)), Unit: measure.UnitRPS})
		if before > 0 && c == 2*before { // a gain to speak of only at twice the connections
			gainStat := stat
			if i == 0 {
				gainStat = "" // the first probe's gain is the run's "probe gain"
			}
			s.figures = append(s.figures, results.Figure{Name: "probe gain", Stat: gainStat, Value: round(100 * g), Unit: measure.UnitPercent})
		}
	}
	s.doubled = s.conns > 0 && s.probed == 2*s.conns
	s.gain = gainOf(totalRPS(s.before), totalRPS(s.probe))
	s.seen = fmt.Sprintf("%s connections: %s requests/s, %s", strings.Join(chain, " -> "), strings.Join(rps, " -> "), strings.Join(gains, " then "))
	return s
}

func gainOf(before, after float64) float64 {
	if before <= 0 {
		return 0
	}
	return after/before - 1
}

// The outcomes of a probe for a verdict.
const (
	failed       = iota // the probe's run failed: it concludes nothing
	forced              // the verdict is not one a probe decides (--probe): it keeps its kind
	rose                // the RPS rose by ProbeRise: underloaded
	roseBusy            // the same, on a machine other work kept busy
	capped              // rose by ProbeGain up to the load's rate cap: underloaded
	freed               // machine-saturated with idle CPU, rose by ProbeRise: underloaded
	held                // machine-saturated with idle CPU, flat: it stands
	between             // machine-saturated with idle CPU, between ProbeGain and ProbeRise: it cannot tell
	filled              // flat on a machine other work filled: it concludes nothing
	saturated           // the probe's run saturated something: underloaded
	again               // between ProbeGain and ProbeRise: a second probe can tell
	unsure              // between, after a second probe: it cannot tell
	inconclusive        // flat where the probe's run had another verdict: it concludes nothing
	flat                // serialized
	flatBusy            // serialized, on a machine other work kept busy but not full
)

// outcome is what probe step s says of a verdict of kind, and the probe's own verdict.
func outcome(kind string, s probeStep, th Thresholds) (int, string) {
	pv := Diagnose(s.probe, th)
	pkind := ""
	if len(pv) > 0 {
		pkind = pv[0].Kind
	}
	up := totalRPS(s.before) > 0 && s.gain >= th.ProbeGain
	switch {
	case pkind == ErrorBound || pkind == Unserved:
		return failed, pkind
	case kind == MachineSaturated && roomLeft(s.before, th) > 0:
		return roomOutcome(s, pkind, up, th), pkind
	case kind != Underloaded && kind != Waiting:
		return forced, pkind
	case up && s.gain >= th.ProbeRise && pkind == MachineBusy:
		return roseBusy, pkind
	case up && s.gain >= th.ProbeRise:
		return rose, pkind
	case up && pkind == RateCapped:
		return capped, pkind
	case pkind == MachineBusy && full(s.probe, th):
		return filled, pkind
	case slices.Contains([]string{MachineSaturated, ClientBound, ServerBound, ContentionBound}, pkind):
		return saturated, pkind
	case up:
		return again, pkind
	case pkind != Underloaded && pkind != Waiting && pkind != MachineBusy && pkind != "":
		return inconclusive, pkind
	case pkind == MachineBusy:
		return flatBusy, pkind
	}
	return flat, pkind
}

// roomOutcome is what probe step s says of a machine-saturated verdict whose machine kept idle
// CPU: twice the connections taking ProbeRise more of it says the load was too light (a machine
// the jobs fill gives no such gain), a gain below ProbeGain that they fill it, one between cannot
// tell. Flat on a machine other work kept busy concludes nothing.
func roomOutcome(s probeStep, pkind string, up bool, th Thresholds) int {
	switch {
	case up && s.gain >= th.ProbeRise:
		return freed
	case up:
		return between
	case pkind == MachineBusy:
		return filled
	}
	return held
}

// fold turns the verdict v by the outcome o of probe step s (pkind: the probe's own verdict).
func fold(v *results.Diagnostic, res *results.Result, s probeStep, o int, pkind string, th Thresholds) {
	seen := s.seen
	switch o {
	case failed:
		v.Message += fmt.Sprintf(" (a short probe run: %s, but the probe's run failed (%s): it concludes nothing)", seen, pkind)
	case forced:
		v.Message += fmt.Sprintf(" (a short probe run, forced by --probe: %s)", seen)
	case roseBusy:
		// Other work can only hold the probe back: a gain stands even on a busy machine.
		toUnderloaded(v, res, th, fmt.Sprintf(" (checked by a short probe run: %s, on a machine other work kept busy)", seen))
	case rose:
		toUnderloaded(v, res, th, fmt.Sprintf(" (checked by a short probe run: %s)", seen))
	case capped:
		// The probe's gain stopped at the load's own cap, not at the server.
		toUnderloaded(v, res, th, fmt.Sprintf(" (checked by a short probe run: %s, up to the load's rate cap)", seen))
	case freed:
		toUnderloaded(v, res, th, fmt.Sprintf(" (checked by a short probe run: %s: the machine was %.0f %% busy and twice the connections "+
			"took more of it: the jobs did not fill it, the load was too light)", seen, roomLeft(res, th)))
	case held:
		v.Message += fmt.Sprintf(" (checked by a short probe run: %s: less than the %.0f %% a load too light gains: the jobs fill the machine)",
			seen, 100*th.ProbeGain)
	case between:
		v.Message += fmt.Sprintf(" (a short probe run: %s: more than the %.0f %% of a machine the jobs fill, less than the %.0f %% of a load too "+
			"light: it cannot tell; a run with the load generator on a machine of its own tells)", seen, 100*th.ProbeGain, 100*th.ProbeRise)
	case filled:
		v.Message += fmt.Sprintf(" (a short probe run: %s, but other work filled the probe's machine: it concludes nothing; "+
			"run the probe on a quiet machine)", seen)
	case saturated:
		toUnderloaded(v, res, th, fmt.Sprintf(" (checked by a short probe run: %s, where the run was %s: the load was too light)", seen, pkind))
	case again, unsure:
		// Twice the requests in flight did neither about twice the work (a load too light) nor
		// the same (one at a time): a server that handles a few at a time, or a probe that
		// differs from its run by more than noise. A guess either way could send the user the
		// wrong way; say what would tell.
		tells := "a longer run at both connections, or a second probe at twice the probe's connections, tells"
		if o == unsure {
			tells = "a longer run at each of these connections tells"
		}
		v.Message += fmt.Sprintf(" (a short probe run: %s: more than the %.0f %% of a server that handles requests one at a time, "+
			"less than the %.0f %% of a load too light: it cannot tell; %s)", seen, 100*th.ProbeGain, 100*th.ProbeRise, tells)
	case inconclusive:
		v.Message += fmt.Sprintf(" (a short probe run: %s, where the run was %s: it concludes nothing)", seen, pkind)
	default:
		serialized(v, res, s, o == flatBusy, th)
	}
}

// toUnderloaded makes v the run's underloaded verdict (a waiting or machine-saturated one gains
// underloaded's message and advice), keeping v's figures, and adds what the probe saw.
func toUnderloaded(v *results.Diagnostic, res *results.Result, th Thresholds, note string) {
	if v.Kind == Waiting || v.Kind == MachineSaturated {
		r := newRun(res, th)
		u := underloaded(r, busiest(known(r.servers)), known(r.loads)[0], th)
		v.Kind, v.Message, v.Figures = Underloaded, u.Message, appendNew(u.Figures, v.Figures...)
	}
	v.Message += note
}

// serialized makes v the serialized verdict, with the service time the most throughput the run
// and its probes reached implies (1/X: the server's limit, whichever run reached it).
func serialized(v *results.Diagnostic, res *results.Result, s probeStep, busy bool, th Thresholds) {
	r := newRun(res, th)
	main, load := busiest(known(r.servers)), known(r.loads)[0]
	where, runs := "", "a short probe run"
	if s.second {
		runs = "two short probe runs"
	}
	if busy {
		where = ", on a machine other work kept busy but not full: the jobs had idle CPU to take and did not"
	}
	service := 0.0
	if s.best > 0 {
		service = 1e6 / s.best
	}
	*v = results.Diagnostic{Kind: Serialized, Message: fmt.Sprintf(
		"requests per second stayed flat when the connections doubled%s (%s, %s%s) while neither side is saturated "+
			"(%s: %s; %s: %s): the server handles requests one or a few at a time (a lock, a one-slot channel, "+
			"a single worker or connection to a backend), each in about %s µs if one at a time (1/X at %s requests/s, the most "+
			"the run and its probes reached); more load will not help",
		twice(s.second), s.seen, runs, where, main.name, cpuText(main), load.name, cpuText(load), n0(service), n0(s.best)),
		Figures: appendNew(slices.DeleteFunc(slices.Clone(v.Figures), func(f results.Figure) bool { return f.Name == figService }),
			results.Figure{Name: figService, Value: round(service), Unit: measure.UnitUs})}
}

// figService names the service time a server that handles requests one at a time would have.
const figService = "service time if one at a time"

// twice is how the flat step's connections grew: doubled, or doubled again after a first probe.
func twice(second bool) string {
	if second {
		return " again"
	}
	return ""
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

// NotProbed says, in an underloaded or waiting verdict of res (diags, its diagnosis at th), that
// no probe checked it and why: a server that handles requests one at a time looks the same in
// the CPU figures; and in a machine-saturated one whose machine kept idle CPU (roomLeft, as its
// message says with roomNote), which a light load leaves too. Other verdicts are returned as
// they are.
func NotProbed(diags []results.Diagnostic, res *results.Result, th Thresholds, why string) []results.Diagnostic {
	if len(diags) == 0 {
		return diags
	}
	out := slices.Clone(diags)
	if out[0].Kind == MachineSaturated && roomLeft(res, th) > 0 {
		out[0].Message += " (not checked by a probe at twice the connections: " + why + ")"
		return out
	}
	if out[0].Kind != Underloaded && out[0].Kind != Waiting {
		return diags
	}
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
