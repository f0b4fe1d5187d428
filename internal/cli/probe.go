package cli

import (
	"context"
	"fmt"
	"strconv"

	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/config"
	"github.com/crankshaft/crankshaft/internal/controller"
	"github.com/crankshaft/crankshaft/internal/diagnose"
	"github.com/crankshaft/crankshaft/internal/results"
)

// Probe run settings: at most ProbeDuration measured seconds and ProbeWarmup of warm-up.
const (
	ProbeDuration = 5
	ProbeWarmup   = 2
)

// probe runs the scenario once more, briefly, at twice the load's connections when the diagnosis
// says underloaded, and lets diagnose.Probe tell a light load from a serialized server. A probe
// that cannot run leaves the diagnosis as it was, and says why.
func probe(ctx context.Context, st State, f *runFlags, ctl *controller.Controller, run controller.Run,
	resolved *config.Resolved, res *results.Result, th diagnose.Thresholds) []results.Diagnostic {
	diags := res.JobResults.Diagnostics
	if f.noProbe || !diagnose.NeedsProbe(diags) {
		return diags
	}
	pf := *f
	pf.overrides = append([][2]string{}, f.overrides...)
	var conns float64
	for _, s := range resolved.Services {
		if !s.Job.WaitForExit {
			continue
		}
		c, ok := api.Number(s.Job.Variables["connections"])
		if !ok || c < 1 {
			continue
		}
		conns = c
		pf.overrides = append(pf.overrides, [2]string{s.Name + ".variables.connections", strconv.FormatFloat(2*c, 'f', -1, 64)})
		if d, ok := api.Number(s.Job.Variables["duration"]); ok && d > ProbeDuration {
			pf.overrides = append(pf.overrides, [2]string{s.Name + ".variables.duration", strconv.Itoa(ProbeDuration)})
		}
		if w, ok := api.Number(s.Job.Variables["warmup"]); ok && w > ProbeWarmup {
			pf.overrides = append(pf.overrides, [2]string{s.Name + ".variables.warmup", strconv.Itoa(ProbeWarmup)})
		}
	}
	if conns == 0 {
		return diags
	}
	fmt.Fprintf(st.Stderr, "probe: the run looks underloaded; a short run at twice the connections (%s) tells a light load from a serialized server (--no-probe skips it)\n",
		strconv.FormatFloat(2*conns, 'f', -1, 64))
	pr, _, err := resolve(ctx, st, &pf)
	if err == nil {
		prun := run
		prun.Iterations, prun.Span, prun.Repeat, prun.Exclude = 1, 0, "", results.Exclusion{}
		prun.Services = servicesOf(pr, pf.interval)
		var probed *results.Result
		if probed, err = ctl.Execute(ctx, prun); err == nil {
			return diagnose.Probe(diags, res, probed, conns, th)
		}
	}
	fmt.Fprintf(st.Stderr, "probe: could not run, the diagnosis stays as it was: %v\n", err)
	return diags
}
