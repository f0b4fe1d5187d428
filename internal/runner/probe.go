package runner

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

// ProbeMode says when the probe runs: when it can change the verdict (ProbeAuto), always
// (ProbeForce, --probe) or never (ProbeOff, --no-probe).
type ProbeMode int

const (
	ProbeAuto ProbeMode = iota
	ProbeForce
	ProbeOff
)

// probe runs the scenario once more, briefly, at twice the load's connections when that can
// change the verdict (diagnose.ProbeSkip says when not; --probe runs it anyway, --no-probe never),
// and folds what it saw into the verdict (diagnose.Probe). A probe that cannot run leaves the
// verdict as it was, and the verdict says why when it was underloaded.
func (p *Prepared) probe(ctx context.Context, ex Executor, run controller.Run, res *results.Result, th diagnose.Thresholds) []results.Diagnostic {
	diags, env := res.JobResults.Diagnostics, p.env
	if skip := p.probeSkip(res, th); skip != "" {
		return diagnose.NotProbed(diags, skip)
	}
	ps, conns, err := probeSource(p.Plan.Source, p.Resolved)
	if err != nil {
		fmt.Fprintf(env.Stderr, "probe: not run: %v\n", err)
		return diagnose.NotProbed(diags, err.Error())
	}
	fmt.Fprintf(env.Stderr, "probe: a short run at twice the connections (%s -> %s) tells a light load from a serialized server (--no-probe skips it)\n",
		num(conns), num(2*conns))
	pr, _, err := Resolve(ctx, env, ps)
	if err == nil {
		err = checkDoubled(pr, conns)
	}
	if err == nil {
		prun := run
		prun.Iterations, prun.Span, prun.Repeat, prun.Exclude = 1, 0, "", results.Exclusion{}
		prun.Services = Services(pr, ps.Interval)
		var probed *results.Result
		probed, err = ex.Execute(ctx, prun)
		switch {
		case ctx.Err() != nil || (probed != nil && probed.Interrupted != nil):
			// A probe cut short by Ctrl-C measured part of its window: it concludes nothing.
			fmt.Fprintln(env.Stderr, "probe: interrupted, the verdict stays as it was")
			return diagnose.NotProbed(diags, "the probe was interrupted")
		case err == nil:
			return diagnose.Probe(diags, res, probed, th)
		}
	}
	fmt.Fprintf(env.Stderr, "probe: could not run, the verdict stays as it was: %v\n", err)
	return diagnose.NotProbed(diags, "the probe could not run: "+err.Error())
}

// probeSkip is why the probe does not run ("": it runs).
func (p *Prepared) probeSkip(res *results.Result, th diagnose.Thresholds) string {
	switch p.Plan.Probe {
	case ProbeOff:
		return "--no-probe"
	case ProbeForce:
		return ""
	}
	return diagnose.ProbeSkip(res, res.JobResults.Diagnostics, th)
}

// probeSource is the run's source with every load job's connections doubled and its duration and
// warm-up shortened. A setting given by a top-level --variable (or --variable-json) beats a
// job's own variables, so the probe sets it there too: a 1-connection run given by
// --variable connections=1 is probed at 2.
func probeSource(src Source, resolved *config.Resolved) (Source, float64, error) {
	ps := src
	ps.Variables = maps.Clone(src.Variables)
	ps.JSONVars = maps.Clone(src.JSONVars)
	ps.Overrides = slices.Clone(src.Overrides)
	set := func(svc, name string, v float64) {
		s := num(v)
		ps.Overrides = append(ps.Overrides, [2]string{svc + ".variables." + name, s})
		if _, ok := src.Variables[name]; ok {
			ps.Variables[name] = s
		}
		if _, ok := src.JSONVars[name]; ok {
			ps.JSONVars[name] = v
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
		return Source{}, 0, fmt.Errorf("no load job has a connections variable to double")
	}
	return ps, conns, nil
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
