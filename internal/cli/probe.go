package cli

import (
	"context"
	"fmt"
	"maps"
	"slices"
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

// probe runs the scenario once more, briefly, at twice the load's connections when that can
// change the verdict (diagnose.ProbeSkip says when not; --probe runs it anyway, --no-probe never),
// and folds what it saw into the verdict (diagnose.Probe). A probe that cannot run leaves the
// verdict as it was, and the verdict says why when it was underloaded.
func probe(ctx context.Context, st State, f *runFlags, ctl *controller.Controller, run controller.Run,
	resolved *config.Resolved, res *results.Result, th diagnose.Thresholds) []results.Diagnostic {
	diags := res.JobResults.Diagnostics
	skip := diagnose.ProbeSkip(res, diags, th)
	switch {
	case f.noProbe:
		return diagnose.NotProbed(diags, "--no-probe")
	case skip != "" && !f.forceProbe:
		return diagnose.NotProbed(diags, skip)
	}
	pf, conns, err := probeFlags(f, resolved)
	if err != nil {
		fmt.Fprintf(st.Stderr, "probe: not run: %v\n", err)
		return diagnose.NotProbed(diags, err.Error())
	}
	fmt.Fprintf(st.Stderr, "probe: a short run at twice the connections (%s -> %s) tells a light load from a serialized server (--no-probe skips it)\n",
		num(conns), num(2*conns))
	pr, _, err := resolve(ctx, st, pf)
	if err == nil {
		err = checkDoubled(pr, conns)
	}
	if err == nil {
		prun := run
		prun.Iterations, prun.Span, prun.Repeat, prun.Exclude = 1, 0, "", results.Exclusion{}
		prun.Services = servicesOf(pr, pf.interval)
		var probed *results.Result
		probed, err = ctl.Execute(ctx, prun)
		switch {
		case ctx.Err() != nil || (probed != nil && probed.Interrupted != nil):
			// A probe cut short by Ctrl-C measured part of its window: it concludes nothing.
			fmt.Fprintln(st.Stderr, "probe: interrupted, the verdict stays as it was")
			return diagnose.NotProbed(diags, "the probe was interrupted")
		case err == nil:
			return diagnose.Probe(diags, res, probed, th)
		}
	}
	fmt.Fprintf(st.Stderr, "probe: could not run, the verdict stays as it was: %v\n", err)
	return diagnose.NotProbed(diags, "the probe could not run: "+err.Error())
}

// probeFlags are the run's flags with every load job's connections doubled and its duration and
// warm-up shortened. A setting given by a top-level --variable (or --variable-json) beats a
// job's own variables, so the probe sets it there too: a 1-connection run given by
// --variable connections=1 is probed at 2.
func probeFlags(f *runFlags, resolved *config.Resolved) (*runFlags, float64, error) {
	pf := *f
	pf.variables = maps.Clone(f.variables)
	pf.jsonVars = maps.Clone(f.jsonVars)
	pf.overrides = slices.Clone(f.overrides)
	set := func(svc, name string, v float64) {
		s := num(v)
		pf.overrides = append(pf.overrides, [2]string{svc + ".variables." + name, s})
		if _, ok := f.variables[name]; ok {
			pf.variables[name] = s
		}
		if _, ok := f.jsonVars[name]; ok {
			pf.jsonVars[name] = v
		}
	}
	var conns float64
	for _, s := range resolved.Services {
		if !s.Job.WaitForExit {
			continue
		}
		c, ok := api.Number(s.Job.Variables["connections"])
		if !ok || c < 1 {
			continue
		}
		if conns == 0 {
			conns = c
		}
		set(s.Name, "connections", 2*c)
		if d, ok := api.Number(s.Job.Variables["duration"]); ok && d > ProbeDuration {
			set(s.Name, "duration", ProbeDuration)
		}
		if w, ok := api.Number(s.Job.Variables["warmup"]); ok && w > ProbeWarmup {
			set(s.Name, "warmup", ProbeWarmup)
		}
	}
	if conns == 0 {
		return nil, 0, fmt.Errorf("no load job has a connections variable to double")
	}
	return &pf, conns, nil
}

// checkDoubled fails when the probe's resolved load does not run at twice conns.
func checkDoubled(pr *config.Resolved, conns float64) error {
	for _, s := range pr.Services {
		if c, ok := api.Number(s.Job.Variables["connections"]); ok && s.Job.WaitForExit && c >= 1 {
			if c != 2*conns {
				return fmt.Errorf("%s would run at %s connections, not %s", s.Name, num(c), num(2*conns))
			}
			return nil
		}
	}
	return fmt.Errorf("the probe's scenario has no load job with connections")
}

func num(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
