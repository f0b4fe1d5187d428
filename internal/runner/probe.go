package runner

import (
	"context"
	"errors"
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
// and folds what it saw into the verdict (diagnose.Probe). When the first probe's gain cannot tell
// (diagnose.ProbeAgain), a second runs at twice its connections and decides. A probe that cannot
// run leaves the verdict as it was (or as the first probe left it), and the verdict says why when
// it was underloaded.
func (p *Prepared) probe(ctx context.Context, ex Executor, run controller.Run, res *results.Result, th diagnose.Thresholds) []results.Diagnostic {
	diags, env := res.JobResults.Diagnostics, p.env
	if skip := p.probeSkip(res, th); skip != "" {
		return diagnose.NotProbed(diags, res, th, skip)
	}
	ps, conns, err := probeSource(p.Plan.Source, p.Resolved, 2)
	if err != nil {
		fmt.Fprintf(env.Stderr, "probe: not run: %v\n", err)
		return diagnose.NotProbed(diags, res, th, err.Error())
	}
	tells := "a serialized server"
	if len(diags) > 0 && diags[0].Kind == diagnose.MachineSaturated {
		tells = "a machine the jobs fill"
	}
	fmt.Fprintf(env.Stderr, "probe: a short run at twice the connections (%s -> %s) tells a light load from %s (--no-probe skips it)\n",
		num(conns), num(2*conns), tells)
	first, err := p.probeRun(ctx, ex, run, ps, 2*conns)
	if err != nil {
		return p.probeFailed(diags, res, th, err)
	}
	if !diagnose.ProbeAgain(diags, res, th, first) {
		return diagnose.Probe(diags, res, th, first)
	}
	fmt.Fprintf(env.Stderr, "probe: its gain cannot tell; a second short run at twice the probe's connections (%s -> %s) can\n",
		num(2*conns), num(4*conns))
	ps, _, err = probeSource(p.Plan.Source, p.Resolved, 4)
	var second *results.Result
	if err == nil {
		second, err = p.probeRun(ctx, ex, run, ps, 4*conns)
	}
	if err != nil {
		fmt.Fprintf(env.Stderr, "probe: the second could not run, the verdict stays as the first left it: %v\n", err)
		out := diagnose.Probe(diags, res, th, first)
		out[0].Message += " (the second probe did not run: " + err.Error() + ")"
		return out
	}
	return diagnose.Probe(diags, res, th, first, second)
}

// probeRun runs ps (a probeSource) once, briefly, and fails unless its load runs at want
// connections.
func (p *Prepared) probeRun(ctx context.Context, ex Executor, run controller.Run, ps Source, want float64) (*results.Result, error) {
	pr, _, err := Resolve(ctx, p.env, ps)
	if err != nil {
		return nil, err
	}
	if err := checkConnections(pr, want); err != nil {
		return nil, err
	}
	prun := run
	prun.Iterations, prun.Span, prun.Repeat, prun.Exclude = 1, 0, "", results.Exclusion{}
	prun.Services = Services(pr, ps.Interval)
	probed, err := ex.Execute(ctx, prun)
	if ctx.Err() != nil || (probed != nil && probed.Interrupted != nil) {
		// A probe cut short by Ctrl-C measured part of its window: it concludes nothing.
		return nil, errProbeInterrupted
	}
	return probed, err
}

var errProbeInterrupted = errors.New("the probe was interrupted")

// probeFailed says on stderr that a probe did not conclude, and why, in the verdict.
func (p *Prepared) probeFailed(diags []results.Diagnostic, res *results.Result, th diagnose.Thresholds, err error) []results.Diagnostic {
	if errors.Is(err, errProbeInterrupted) {
		fmt.Fprintln(p.env.Stderr, "probe: interrupted, the verdict stays as it was")
		return diagnose.NotProbed(diags, res, th, err.Error())
	}
	fmt.Fprintf(p.env.Stderr, "probe: could not run, the verdict stays as it was: %v\n", err)
	return diagnose.NotProbed(diags, res, th, "the probe could not run: "+err.Error())
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

// probeSource is the run's source with every load job's connections multiplied by factor and its
// duration and warm-up shortened; it returns the first load job's connections before. A setting
// given by a top-level --variable (or --variable-json) beats a job's own variables, so the probe
// sets it there too: a 1-connection run given by --variable connections=1 is probed at 2.
func probeSource(src Source, resolved *config.Resolved, factor float64) (Source, float64, error) {
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
		set(s.Name, "connections", factor*c)
		if d, ok := api.Number(s.Job.Variables["duration"]); ok && d > ProbeDuration {
			set(s.Name, "duration", ProbeDuration)
		}
		if w, ok := api.Number(s.Job.Variables["warmup"]); ok && w > ProbeWarmup {
			set(s.Name, "warmup", ProbeWarmup)
		}
	}
	if conns == 0 {
		return Source{}, 0, fmt.Errorf("no load job has a connections variable to raise")
	}
	return ps, conns, nil
}

// checkConnections fails when the probe's resolved load does not run at want connections.
func checkConnections(pr *config.Resolved, want float64) error {
	for _, s := range pr.Services {
		if c, ok := api.Number(s.Job.Variables["connections"]); ok && s.Job.WaitForExit && c >= 1 {
			if c != want {
				return fmt.Errorf("%s would run at %s connections, not %s", s.Name, num(c), num(want))
			}
			return nil
		}
	}
	return fmt.Errorf("the probe's scenario has no load job with connections")
}

func num(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
