// Package runner composes one run of a scenario, the same way for every command: a plan goes in
// (the scenario's source, iterations, thresholds, probe settings), the scenario is resolved once,
// measured on the agents, diagnosed (with the probe folded in), given to crank's scripts, judged
// against the thresholds, written to the outputs the command chose, and its exit status comes out
// as an error carrying its code (ExitError). crank run, sweep and capacity measure through it;
// crank bisect and compare --base --head prepare each commit with it (Prepare) and run their rounds
// themselves (one iteration of each commit in turn, or every commit at once side by side), each
// round's measurement judged by it (Judge, Diagnose). Every measured run goes through the same
// scripts step before its thresholds, once, on its own results: Execute's, Judge's (a capacity
// step, a round's iteration or part), Script's (a sweep's run, before it is merged into its
// variant, which JudgeMerged judges). So a measurement is judged one way whichever command took it.
package runner

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"maps"
	"time"

	"github.com/crankshaft/crankshaft/internal/config"
	"github.com/crankshaft/crankshaft/internal/controller"
	"github.com/crankshaft/crankshaft/internal/diagnose"
	"github.com/crankshaft/crankshaft/internal/results"
	"github.com/crankshaft/crankshaft/internal/termtext"
)

// Executor measures a scenario on the agents: *controller.Controller.
type Executor interface {
	Execute(ctx context.Context, run controller.Run) (*results.Result, error)
}

// Emit writes a run's results to the outputs the command chose (order: the services in scenario
// order) and returns the exit status they give.
type Emit func(ctx context.Context, res *results.Result, order []string) int

// Plan is what a run is asked to do.
type Plan struct {
	Source Source
	// Run holds the controller's settings (iterations, description, session, properties, span,
	// repeat, exclusion); Prepare fills in the scenario, profiles, services and a session.
	Run controller.Run
	// Auto is --iterations auto: Run.Iterations at most, until the headline figure's 95 %
	// interval is within Precision of its mean.
	Auto      bool
	Precision float64
	Verdict   Verdict
	Probe     ProbeMode
	Verbose   bool // show each service's commands
	// Executed, when set, is called as soon as the measurement ends (a live status line cleared).
	Executed func()
}

// Prepared is a plan whose scenario is resolved and checked: ready to measure.
type Prepared struct {
	Plan     Plan
	Resolved *config.Resolved
	Scripts  *config.Scripts
	run      controller.Run
	env      Env
}

// Prepare resolves the plan's scenario (once: every measurement of the run uses it) and checks
// its thresholds against the scenario's services and figures.
func Prepare(ctx context.Context, env Env, plan Plan) (*Prepared, error) {
	env = env.withDefaults()
	resolved, scripts, err := Resolve(ctx, env, plan.Source)
	if err == nil {
		err = checkVerdict(env.Stderr, plan.Verdict, resolved, scripts)
	}
	if err != nil {
		return nil, Exit(ExitBadInput, err)
	}
	r := plan.Run
	r.Scenario, r.Profiles = resolved.Scenario, resolved.Profiles
	r.Properties = maps.Clone(r.Properties)
	if r.Session == "" {
		r.Session = NewSession()
	}
	r.Services = Services(resolved, plan.Source.Interval)
	return &Prepared{Plan: plan, Resolved: resolved, Scripts: scripts, run: r, env: env}, nil
}

// Services is what the controller runs of the prepared scenario.
func (p *Prepared) Services() []controller.Service { return p.run.Services }

// Order is the services in scenario order, as the tables show them.
func (p *Prepared) Order() []string {
	var order []string
	for _, s := range p.run.Services {
		if len(order) == 0 || order[len(order)-1] != s.Name {
			order = append(order, s.Name)
		}
	}
	return order
}

// Execute measures the prepared scenario and carries the run through: its diagnosis, the probe,
// the scripts, the thresholds, the outputs (emit). Its error carries the exit status (CodeOf);
// what went wrong has been said on the run's Stderr.
func (p *Prepared) Execute(ctx context.Context, ex Executor, emit Emit) error {
	env, later := p.env, context.WithoutCancel(ctx)
	res, runErr, stop := p.measure(ctx, ex)
	if stop != nil {
		return stop
	}
	th := Diagnose(res)
	res.Variant = variant(p.run.Properties, p.Resolved.Variant)
	if res.Interrupted != nil {
		res.ReturnCode = ExitInterrupted // the JSON says the exit status crank gives
		emit(later, res, p.Order())
		return said(ExitInterrupted, errors.New("interrupted"))
	}
	if runErr == nil {
		res.JobResults.Diagnostics = p.probe(ctx, ex, p.run, res, th)
	}
	// crank's scripts (root results:, onResultsCreating/Created, --script) before the thresholds,
	// which may name what they add; the scripts' error goes beside the thresholds' failures.
	verdict, scriptErr := p.conclude(res, func(saved *results.Result, why error) int {
		saved.Failures = append(saved.Failures, why.Error())
		saved.ReturnCode = ExitFailed
		emit(later, saved, p.Order())
		return ExitFailed
	})
	if scriptErr != nil {
		fmt.Fprintf(env.Stderr, "crank: %v\n", scriptErr)
	}
	// The run's error goes first, so that the JSON's returnCode and failures are crank's exit
	// status and why.
	if runErr != nil {
		res.Failures = append([]string{runErr.Error()}, res.Failures...)
		res.ReturnCode, verdict = ExitFailed, ExitFailed
	}
	code := emit(later, res, p.Order())
	writeVerdict(env.Stdout, env.Stderr, res)
	if code != ExitOK {
		return said(code, nil)
	}
	return said(verdict, nil)
}

// measure runs the controller. A run that measured nothing returns stop (its exit status); a run
// that lost a generator returns the others' figures with runErr.
func (p *Prepared) measure(ctx context.Context, ex Executor) (res *results.Result, runErr, stop error) {
	env, r := p.env, p.run
	services, metric := Headline(p.Resolved)
	if p.Plan.Auto {
		r.Until = until(env.Stderr, services, metric, p.Plan.Precision)
	}
	if p.Plan.Verbose {
		printCommands(env.Progress, r.Services)
	}
	res, err := ex.Execute(ctx, r)
	if p.Plan.Executed != nil {
		p.Plan.Executed()
	}
	if err != nil {
		if ctx.Err() != nil {
			err = fmt.Errorf("interrupted: %w", err)
		}
		fmt.Fprintf(env.Stderr, "crank: %s\n", termtext.Lines(err.Error())) // it may hold an agent's text
		switch {
		case res == nil && ctx.Err() != nil:
			fmt.Fprintln(env.Stderr, "crank: interrupted before anything was measured")
			return nil, nil, said(ExitInterrupted, err)
		case errors.Is(err, controller.ErrCannotRun):
			return nil, nil, said(ExitBadInput, err) // the scenario asks the lab for what it lacks: nothing ran
		case res == nil:
			return nil, nil, said(ExitFailed, err)
		}
	}
	if p.Plan.Auto {
		res.Precision = ResultPrecision(res, services, metric, p.Plan.Precision)
	}
	return res, err, nil // a lost generator: the others' figures are written, and the run fails
}

// Judge is the judgement of one measured run taken outside Execute (a bisect step's or a compare
// round's iteration, a part of a round side by side, a capacity step), in Execute's order: the
// diagnosis, the probe's note (why none ran), crank's scripts on the run's own results, the
// thresholds. It returns the exit status they give, and the scripts' error (ErrScripts), which
// fails the measurement (ExitFailed, its message among res.Failures) as it fails a run.
func (p *Prepared) Judge(res *results.Result, noProbe string) (int, error) {
	p.diagnose(res, noProbe)
	return p.conclude(res, nil)
}

// JudgeMerged is the judgement of a measurement made of runs merged (a sweep's variant, its
// iterations so far), each of which had its scripts on its own results (Script) before it was
// merged: the diagnosis, the probe's note, the thresholds. The scripts are not run again on the
// merged results: their figures are the runs' means, as every other figure's.
func (p *Prepared) JudgeMerged(res *results.Result, noProbe string) int {
	p.diagnose(res, noProbe)
	return p.thresholds(res)
}

// diagnose is the first half of a judgement outside Execute: the diagnosis, and the note of why
// the probe did not run (the diagnosis' reason to skip it, else noProbe).
func (p *Prepared) diagnose(res *results.Result, noProbe string) {
	th := Diagnose(res)
	why := p.probeSkip(res, th)
	if why == "" {
		why = noProbe
	}
	res.JobResults.Diagnostics = diagnose.NotProbed(res.JobResults.Diagnostics, res, th, why)
}

// Diagnose records res's diagnosis (diagnose.Diagnose at the documented thresholds, which it
// returns): the first half of every judgement (Execute, Judge, JudgeMerged), and the whole of it for a
// measurement no threshold names (a round of crank bisect's commits side by side, whose services
// are the copies').
func Diagnose(res *results.Result) diagnose.Thresholds {
	th := diagnose.DefaultThresholds()
	res.JobResults.Diagnostics = diagnose.Diagnose(res, th)
	return th
}

// thresholds is the second half of every judgement: the failed requests, the generators behind
// and the thresholds (the scenario's and --threshold's), recorded in res; it returns the exit
// status they give.
func (p *Prepared) thresholds(res *results.Result) int {
	return judge(res, p.Plan.Verdict, p.Plan.Verdict.scenarioThresholds(p.Resolved))
}

// Unmeasured is the verdict of a judged result by which its figures do not describe the
// application's work (error-bound: they describe the failures; unserved: the application did not
// serve what the load counted), and whether it says so: such a result is no measurement of the
// application, and a search that compares figures must not use it.
func Unmeasured(res *results.Result) (results.Diagnostic, bool) {
	for _, d := range res.JobResults.Diagnostics {
		if d.Kind == diagnose.ErrorBound || d.Kind == diagnose.Unserved {
			return d, true
		}
	}
	return results.Diagnostic{}, false
}

// variant is a run's variant: the variables that differ from the scenario's defaults, and its
// --property values (a property wins over a variable of the same name).
func variant(properties, variables map[string]string) map[string]string {
	if len(properties)+len(variables) == 0 {
		return nil
	}
	out := maps.Clone(variables)
	if out == nil {
		out = map[string]string{}
	}
	maps.Copy(out, properties)
	return out
}

// Variant is the variant of a run with these properties of a resolved scenario.
func Variant(properties map[string]string, r *config.Resolved) map[string]string {
	return variant(properties, r.Variant)
}

// NewSession is a new run's session: its start time and a random suffix.
func NewSession() string {
	b := make([]byte, 3)
	_, _ = rand.Read(b)
	return time.Now().UTC().Format("20060102T150405Z") + "-" + hex.EncodeToString(b)
}

// printCommands prints each service's rendered command lines (-v).
func printCommands(w io.Writer, services []controller.Service) {
	for _, s := range services {
		where := "the embedded agent"
		if len(s.Endpoints) > 0 {
			where = fmt.Sprint(s.Endpoints)
		}
		if s.Job.BuildCommand != "" {
			fmt.Fprintf(w, "[%s] build command (on %s): %s\n", s.Name, where, s.Job.BuildCommand)
		}
		if s.Job.WarmupArguments != "" {
			fmt.Fprintf(w, "[%s] warm-up command (on %s): %s %s\n", s.Name, where, s.Job.Executable, s.Job.WarmupArguments)
		}
		fmt.Fprintf(w, "[%s] command (on %s): %s\n", s.Name, where, controller.CommandLine(s.Job))
	}
}
