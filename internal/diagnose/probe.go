package diagnose

import (
	"fmt"
	"slices"

	"github.com/crankshaft/crankshaft/internal/measure"
	"github.com/crankshaft/crankshaft/internal/results"
)

// NeedsProbe tells whether the diagnosis found nothing saturated ("underloaded", or "unreliable"
// on a busy machine): the verdicts a short run at twice the connections can confirm or turn into
// "serialized", since it does not rest on CPU figures.
func NeedsProbe(diags []results.Diagnostic) bool {
	return slices.ContainsFunc(diags, unsaturated)
}

func unsaturated(d results.Diagnostic) bool { return d.Kind == Underloaded || d.Kind == Unreliable }

// Probe reads a short extra run at twice the connections (probe) against the run it checks
// (res): when the RPS rose by less than th.ProbeGain, the server handles requests one (or a few)
// at a time whatever the load, and the underloaded verdict becomes serialized; otherwise the
// verdict stays, with the gain the probe measured. An unreliable verdict (a busy machine, where
// a CPU-starved server also stays flat) stays unreliable, with what the probe saw. connections is
// the load's setting in res.
func Probe(diags []results.Diagnostic, res, probe *results.Result, connections float64, th Thresholds) []results.Diagnostic {
	base, probed := totalRPS(res), totalRPS(probe)
	i := slices.IndexFunc(diags, unsaturated)
	if i < 0 || base <= 0 {
		return diags
	}
	out := slices.Clone(diags)
	gain := probed/base - 1
	figures := fmt.Sprintf("%s -> %s connections: %s -> %s requests/s, %+.0f%%",
		n0(connections), n0(2*connections), n0(base), n0(probed), 100*gain)
	if out[i].Kind == Unreliable {
		what := "the load was too light"
		if gain < th.ProbeGain {
			what = "the load is not what limits the run"
		}
		out[i].Message += fmt.Sprintf(" (a short probe run: %s, so %s)", figures, what)
		return out
	}
	if gain < th.ProbeGain {
		r := newRun(res, th)
		main, load := busiest(known(r.servers)), known(r.loads)[0]
		out[i] = results.Diagnostic{Kind: Serialized, Message: fmt.Sprintf(
			"requests per second stayed flat when the connections doubled (%s, a short probe run) while neither side is saturated "+
				"(%s: %s; %s: %s): the server handles requests one or a few at a time (a lock, a one-slot channel, "+
				"a single worker or connection to a backend); more load will not help",
			figures, main.name, short(main), load.name, short(load))}
		return out
	}
	out[i].Message += fmt.Sprintf(" (checked by a short probe run: %s)", figures)
	return out
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
