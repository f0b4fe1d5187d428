// Package cli is the crank command line. State (arguments, environment, output streams) is
// injected, so tests run the whole CLI in-process.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os/exec"

	"github.com/crankshaft/crankshaft/internal/agent"
	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/config"
	"github.com/crankshaft/crankshaft/internal/controller"
	"github.com/crankshaft/crankshaft/internal/duet"
	"github.com/crankshaft/crankshaft/internal/gate"
	"github.com/crankshaft/crankshaft/internal/influx"
	"github.com/crankshaft/crankshaft/internal/loadgen"
	"github.com/crankshaft/crankshaft/internal/measure"
	"github.com/crankshaft/crankshaft/internal/output"
	"github.com/crankshaft/crankshaft/internal/parsers/registry"
	"github.com/crankshaft/crankshaft/internal/progress"
	"github.com/crankshaft/crankshaft/internal/report"
	"github.com/crankshaft/crankshaft/internal/results"
	"github.com/crankshaft/crankshaft/internal/runner"
	"github.com/crankshaft/crankshaft/internal/termchart"
	"github.com/crankshaft/crankshaft/internal/termtext"
)

// Version is the crank version reported by `crank version` and the embedded agent.
const Version = "0.1.0"

// State is what the CLI reads and writes.
type State struct {
	Args   []string // without the program name
	Getenv func(string) string
	Stdout io.Writer
	Stderr io.Writer
	// LookPath finds programs on this machine (default exec.LookPath).
	LookPath func(string) (string, error)
}

// Exit codes.
const (
	ExitOK       = 0
	ExitFailed   = 1 // the run failed, or a gate found a regression
	ExitBadInput = 2
	// ExitCannotTell is crank compare's inconclusive (gate.ExitInconclusive), and crank
	// capacity's search that cannot settle.
	ExitCannotTell = gate.ExitInconclusive
)

// Run runs the command line and returns the exit code.
func Run(ctx context.Context, st State) int {
	if st.Getenv == nil {
		st.Getenv = func(string) string { return "" }
	}
	if st.LookPath == nil {
		st.LookPath = exec.LookPath
	}
	if len(st.Args) == 0 {
		fmt.Fprint(st.Stderr, usage)
		return ExitBadInput
	}
	switch st.Args[0] {
	case "help", "-h", "--help":
		fmt.Fprint(st.Stdout, usage)
		return ExitOK
	case "version", "--version":
		fmt.Fprintln(st.Stdout, "crank", Version)
		return ExitOK
	case "compare": // of result files, or of two refs measured here (--base, --head: internal/duet)
		return duet.Compare(ctx, st.Args[1:], st.Stdout, st.Stderr, func(rest []string) (*runner.Command, error) {
			rf, err := parseRunFlags(rest, st.Getenv)
			if err != nil {
				return nil, err
			}
			rf.display.ownSteps = true
			return command(st, rf), nil
		})
	case "regressions":
		return gate.RegressionsEnv(ctx, st.Args[1:], st.Getenv, st.Stdout, st.Stderr)
	case "push":
		return influx.Main(ctx, st.Args[1:], st.Getenv, st.Stdout, st.Stderr)
	case "load":
		return loadgen.Main(ctx, st.Args[1:], st.Getenv, st.Stdout, st.Stderr)
	case "sweep":
		return runSweep(ctx, st, st.Args[1:])
	case "capacity":
		return runCapacity(ctx, st, st.Args[1:])
	case "bisect":
		return runBisect(ctx, st, st.Args[1:])
	case "report":
		return report.Main(ctx, st.Args[1:], st.Stdout, st.Stderr)
	}
	f, err := parseRunFlags(st.Args, st.Getenv)
	if err != nil {
		fmt.Fprintf(st.Stderr, "crank: %v\n", err)
		return ExitBadInput
	}
	return runScenario(ctx, st, f)
}

func logger(w io.Writer, verbose bool) *slog.Logger {
	level := slog.LevelWarn
	if verbose {
		level = slog.LevelDebug
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: level}))
}

func runScenario(ctx context.Context, st State, f *runFlags) int {
	mode := progress.ModeFor(st.Stderr, f.display.quiet)
	pr := progress.New(st.Stderr, mode, nil)
	logTo := st.Stderr
	if mode == progress.Terminal {
		logTo = pr // log lines scroll above the status line instead of breaking it
	}
	log := logger(logTo, f.verbose)
	plan := f.plan()
	plan.Executed = pr.Clear
	env := runEnv(st)
	env.Progress = pr
	prepared, err := runner.Prepare(ctx, env, plan)
	if err != nil {
		fmt.Fprintf(st.Stderr, "crank: %v\n", err)
		return ExitBadInput
	}
	if f.dryRun != "" {
		return writeDryRun(st, f.dryRun, prepared.Resolved)
	}
	if err := checkOutputs(f); err != nil {
		fmt.Fprintf(st.Stderr, "crank: %v\n", err)
		return ExitBadInput
	}
	ctl, err := newController(st, f, log, pr, statusOf(pr, mode))
	if err != nil {
		fmt.Fprintf(st.Stderr, "crank: %v\n", err)
		return ExitBadInput
	}
	defer ctl.Close(context.WithoutCancel(ctx))
	return runner.CodeOf(prepared.Execute(ctx, ctl, func(ctx context.Context, res *results.Result, order []string) int {
		return finish(ctx, st, f, order, res, log)
	}))
}

// source is what the run's scenario is resolved from.
func (f *runFlags) source() runner.Source {
	return runner.Source{Configs: f.configs, Strict: f.strict, ImportMap: f.importMap, Scenario: f.scenario, Jobs: f.jobs, Profiles: f.profiles,
		Variables: f.variables, JSONVars: f.jsonVars, Overrides: f.overrides, Scripts: f.scripts, Interval: f.interval}
}

// plan is the run the flags ask for.
func (f *runFlags) plan() runner.Plan {
	probe := runner.ProbeAuto
	switch {
	case f.noProbe:
		probe = runner.ProbeOff
	case f.forceProbe:
		probe = runner.ProbeForce
	}
	return runner.Plan{Source: f.source(), Verdict: f.verdict.plan(), Probe: probe, Verbose: f.verbose,
		Auto: f.spread.auto.on, Precision: f.spread.auto.precision,
		Run: controller.Run{Iterations: f.iterations, Description: f.description, Session: f.session, Properties: f.properties,
			Span: f.spread.span, Repeat: f.spread.repeat, Exclude: f.spread.exclude}}
}

// runEnv is the run library's view of the CLI's state.
func runEnv(st State) runner.Env {
	return runner.Env{Stdout: st.Stdout, Stderr: st.Stderr, LookPath: st.LookPath}
}

// newController is the controller of a run: the agents' token and CA, progress lines to
// progressTo and the live status to status (nil: none), each job's output kept in --output-dir,
// and the embedded agent (with a token of its own, kept in this process's memory) for services
// without endpoints.
func newController(st State, f *runFlags, log *slog.Logger, progressTo io.Writer, status func(progress.Status)) (*controller.Controller, error) {
	httpClient, err := controller.HTTPClient(f.agentCA)
	if err != nil {
		return nil, fmt.Errorf("--agent-ca: %w", err)
	}
	var scoped map[string]string
	if f.tokenFile != "" {
		toks, err := api.ReadTokens(f.tokenFile)
		if err != nil {
			return nil, fmt.Errorf("--agent-token-file: %w", err)
		}
		if toks.Unscoped != "" {
			f.agentToken = toks.Unscoped
		}
		scoped = toks.Scoped
	}
	tokenFor := map[string]bool{}
	for _, u := range f.tokenFor {
		key, err := api.EndpointKey(u)
		if err != nil {
			return nil, fmt.Errorf("--agent-token-for: %w", err)
		}
		tokenFor[key] = true
	}
	if f.display.outputDir != "" {
		recordWritten(st, f.display.outputDir)
	}
	var jobOutput, steps io.Writer // --quiet hides the progress, not what a scenario asks to display
	if f.display.quiet {
		jobOutput = progress.New(st.Stderr, progress.Plain, nil)
	}
	if f.display.ownSteps && !f.verbose {
		steps = io.Discard
	}
	embeddedToken := agent.NewToken()
	return controller.New(controller.Options{
		Logger:        log,
		Progress:      progressTo,
		JobOutput:     jobOutput,
		Steps:         steps,
		Status:        status,
		OutputDir:     f.display.outputDir,
		ProfileDir:    output.Files{JSON: f.jsonOut, Dir: f.display.outputDir}.ProfileDir(),
		Wrote:         func(paths ...string) { recordWritten(st, paths...) },
		Exclude:       exclude(st, f),
		AgentToken:    f.agentToken,
		ScopedTokens:  scoped,
		TokenFor:      tokenFor,
		EmbeddedToken: embeddedToken,
		HTTPClient:    httpClient,
		StartEmbedded: func(ctx context.Context) (string, func(context.Context) error, error) {
			return agent.StartEmbedded(ctx, agent.Options{Token: embeddedToken,
				Parsers: registry.Builtin(), Catalog: measure.Default(), Logger: log, Hardware: "embedded",
			})
		},
	}), nil
}

// writeDryRun writes the resolved scenario's --dry-run JSON to path ("-": stdout).
func writeDryRun(st State, path string, r *config.Resolved) int {
	return (&runner.Command{Env: runEnv(st)}).WriteDryRunOf(path, r)
}

// finish writes the JSON first (nothing is lost), then prints the tables, then compares.
// A failed write still prints the tables (and keeps the results in a temporary file). An
// interrupted run's results are neither published nor compared. A figure that is not a finite
// number (a script's, a precision's) is not measured, with why, and said: the rest is written.
// The outputs are internal/output's, chosen by the flags.
func finish(ctx context.Context, st State, f *runFlags, order []string, res *results.Result, log *slog.Logger) int {
	for _, note := range results.Finite(res) {
		fmt.Fprintf(st.Stderr, "crank: warning: %s\n", termtext.Clean(note))
	}
	for _, short := range results.ShortOfRate(res.JobResults.Jobs) {
		fmt.Fprintf(st.Stderr, "crank: warning: %s\n", termtext.Clean(short))
	}
	f.output.apply(res)
	r := output.Run{Result: res, Order: order}
	written := true
	for _, o := range outputsOf(st, f, log, output.CSV, output.JSON) {
		written = o.Write(ctx, r) == nil && written
	}
	tables := tablesTo(st, f)
	if res.Interrupted != nil {
		fmt.Fprint(tables, res.Interrupted.Note())
	}
	for _, o := range outputsOf(st, f, log, output.Table) {
		if o.Write(ctx, r) != nil {
			return ExitFailed
		}
	}
	fmt.Fprint(tables, runner.PrecisionNote(res.Precision))
	if !written {
		return ExitFailed
	}
	if f.jsonOut != "" && f.jsonOut != "-" {
		fmt.Fprintf(st.Stderr, "results written to %s\n", f.jsonOut)
	}
	if res.Interrupted != nil {
		fmt.Fprintln(st.Stderr, "crank: interrupted: the results are not published or compared")
		return ExitInterrupted
	}
	return publish(ctx, st, f, r, outputsOf(st, f, log, output.Influx, output.Compare))
}

// publish writes the results to InfluxDB and compares them with each --compare file in turn
// (crank's --compare is repeatable); the run failed when any comparison finds a regression.
func publish(ctx context.Context, st State, f *runFlags, r output.Run, outs []output.Output) int {
	code := ExitOK
	for i, o := range outs {
		if n := len(outs) - len(f.compare); i >= n && len(f.compare) > 1 {
			fmt.Fprintf(st.Stdout, "\ncompared with %s:\n", f.compare[i-n])
		}
		var bad *output.BadInput
		switch err := o.Write(ctx, r); {
		case errors.As(err, &bad):
			return ExitBadInput
		case errors.Is(err, output.ErrRegressed):
			code = ExitFailed
		case err != nil:
			return ExitFailed
		}
	}
	return code
}

// outputsOf are the outputs of these names the flags ask for, in that order.
func outputsOf(st State, f *runFlags, log *slog.Logger, names ...string) []output.Output {
	p := output.Params{Stdout: st.Stdout, Stderr: st.Stderr, Logger: log, Written: func(path string) { recordWritten(st, path) }}
	var args []string
	var outs []output.Output
	for _, name := range names {
		q := p
		switch name {
		case output.CSV:
			args = nonEmpty(f.output.csv)
		case output.JSON:
			args = nonEmpty(f.jsonOut)
		case output.Table:
			args, q.Stdout = []string{""}, tablesTo(st, f)
			if f.display.chart {
				q.Chart = &termchart.Options{Type: f.display.chartType, Scale: f.display.chartScale}
			}
		case output.Influx:
			if q.Influx = influxConfig(st, f); q.Influx.Enabled() {
				args = []string{""}
			} else {
				args = nil
			}
		case output.Compare:
			args = f.compare
		}
		for _, a := range args {
			q.Arg = a
			if o, err := output.New(name, q); err == nil {
				outs = append(outs, o)
			}
		}
	}
	return outs
}

func nonEmpty(s string) []string {
	if s == "" {
		return nil
	}
	return []string{s}
}

// influxConfig is the environment's CRANK_INFLUX_* settings with the command line's flags over them.
func influxConfig(st State, f *runFlags) influx.Config {
	cfg := influx.ConfigFromEnv(st.Getenv)
	for _, kv := range []struct {
		flag string
		dst  *string
	}{{f.influx.url, &cfg.URL}, {f.influx.token, &cfg.Token}, {f.influx.org, &cfg.Org}, {f.influx.bucket, &cfg.Bucket}} {
		if kv.flag != "" {
			*kv.dst = kv.flag
		}
	}
	return cfg
}
