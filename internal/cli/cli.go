// Package cli is the crank command line. State (arguments, environment, output streams) is
// injected, so tests run the whole CLI in-process.
package cli

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os/exec"
	"slices"
	"time"

	"github.com/crankshaft/crankshaft/internal/agent"
	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/config"
	"github.com/crankshaft/crankshaft/internal/controller"
	"github.com/crankshaft/crankshaft/internal/diagnose"
	"github.com/crankshaft/crankshaft/internal/gate"
	"github.com/crankshaft/crankshaft/internal/influx"
	"github.com/crankshaft/crankshaft/internal/loadgen"
	"github.com/crankshaft/crankshaft/internal/measure"
	"github.com/crankshaft/crankshaft/internal/parsers/registry"
	"github.com/crankshaft/crankshaft/internal/progress"
	"github.com/crankshaft/crankshaft/internal/report"
	"github.com/crankshaft/crankshaft/internal/results"
	"github.com/crankshaft/crankshaft/internal/safewrite"
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
	case "compare":
		return gate.Compare(ctx, st.Args[1:], st.Stdout, st.Stderr)
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
	resolved, scripts, err := resolve(ctx, st, f)
	if err == nil {
		err = checkThresholdServices(f.verdict.thresholds, resolved)
	}
	if err == nil {
		err = checkThresholdMetrics(st.Stderr, f.verdict.thresholds, resolved, scripts)
	}
	if err != nil {
		fmt.Fprintf(st.Stderr, "crank: %v\n", err)
		return ExitBadInput
	}
	if f.dryRun != "" {
		return writeDryRun(st, f.dryRun, resolved)
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
	run := controller.Run{
		Scenario: resolved.Scenario, Profiles: resolved.Profiles, Iterations: f.iterations,
		Description: f.description, Session: f.session, Properties: f.properties,
		Span: f.spread.span, Repeat: f.spread.repeat, Exclude: f.spread.exclude,
	}
	if run.Session == "" {
		run.Session = newSession()
	}
	run.Services = servicesOf(resolved, f.interval)
	autoServices, autoMetric := headline(resolved)
	if f.spread.auto.on {
		run.Until = f.spread.auto.until(st.Stderr, autoServices, autoMetric)
	}
	if f.verbose {
		printCommands(pr, run.Services)
	}
	res, err := ctl.Execute(ctx, run)
	pr.Clear()
	if err != nil {
		if ctx.Err() != nil {
			err = fmt.Errorf("interrupted: %w", err)
		}
		fmt.Fprintf(st.Stderr, "crank: %s\n", termtext.Lines(err.Error())) // it may hold an agent's text
		if res == nil && ctx.Err() != nil {
			fmt.Fprintln(st.Stderr, "crank: interrupted before anything was measured")
			return ExitInterrupted
		}
		if errors.Is(err, controller.ErrCannotRun) {
			return ExitBadInput // the scenario asks the lab for what it lacks: nothing ran
		}
		if res == nil {
			return ExitFailed
		}
	}
	runErr := err // a lost generator: the others' figures are written, and the run fails
	if f.spread.auto.on {
		res.Precision = resultPrecision(res, autoServices, autoMetric, f.spread.auto.precision)
	}
	th := diagnose.DefaultThresholds()
	res.JobResults.Diagnostics = diagnose.Diagnose(res, th)
	res.Variant = variant(f.properties, resolved.Variant)
	if res.Interrupted != nil {
		res.ReturnCode = ExitInterrupted // the JSON says the exit status crank gives
		finish(context.WithoutCancel(ctx), st, f, run, res, log)
		return ExitInterrupted
	}
	if runErr == nil {
		res.JobResults.Diagnostics = probe(ctx, st, f, ctl, run, resolved, res, th)
	}
	// crank's scripts (root results:, onResultsCreating/Created, --script) before the thresholds,
	// which may name what they add.
	scriptErr := applyScripts(scripts, f.scripts, res, st.Stderr, func(saved *results.Result, why error) int {
		saved.Failures = append(saved.Failures, why.Error())
		saved.ReturnCode = ExitFailed
		finish(context.WithoutCancel(ctx), st, f, run, saved, log)
		return ExitFailed
	})
	if scriptErr != nil {
		fmt.Fprintf(st.Stderr, "crank: %v\n", scriptErr)
	}
	// judge writes the verdict's failures; the run's and the scripts' errors go beside them, so
	// that the JSON's returnCode and failures are crank's exit status and why.
	verdict := judge(res, f.verdict, scenarioThresholds(resolved))
	if scriptErr != nil {
		res.Failures = append(res.Failures, scriptErr.Error())
		res.ReturnCode, verdict = ExitFailed, ExitFailed
	}
	if runErr != nil {
		res.Failures = append([]string{runErr.Error()}, res.Failures...)
		res.ReturnCode, verdict = ExitFailed, ExitFailed
	}
	code := finish(context.WithoutCancel(ctx), st, f, run, res, log)
	writeVerdict(st.Stdout, st.Stderr, res)
	if code != ExitOK {
		return code
	}
	return verdict
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
	embeddedToken := agent.NewToken()
	return controller.New(controller.Options{
		Logger:        log,
		Progress:      progressTo,
		Status:        status,
		OutputDir:     f.display.outputDir,
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

// servicesOf is what the controller runs of a resolved scenario, with crank's --interval (seconds,
// 0: each job's own) as every job's sampling interval.
func servicesOf(res *config.Resolved, interval float64) []controller.Service {
	var out []controller.Service
	fetched := res.FetchedOnly()
	for _, s := range res.Services {
		if interval > 0 { // crank's --interval: every job's sampling interval
			s.Job.Interval = api.Duration(interval * float64(time.Second))
		}
		svc := controller.Service{Name: s.Name, Job: s.Job, Endpoints: s.Endpoints, Fetched: fetched}
		for _, sh := range s.Shares {
			if interval > 0 {
				sh.Job.Interval = s.Job.Interval
			}
			svc.Shares = append(svc.Shares, controller.Share{Weight: sh.Weight, Variables: sh.Variables, Job: sh.Job})
		}
		out = append(out, svc)
	}
	return out
}

func resolve(ctx context.Context, st State, f *runFlags) (*config.Resolved, *config.Scripts, error) {
	cfg := config.Blank()
	if len(f.configs) > 0 {
		var err error
		if cfg, err = config.Load(ctx, f.configs, f.loadOptions()); err != nil {
			return nil, nil, err
		}
		if cfg, err = withOwnApps(ctx, st, cfg, f); err != nil {
			return nil, nil, err
		}
	}
	scripts, err := checkScripts(cfg, f.scripts)
	if err != nil {
		return nil, nil, err
	}
	req := config.Request{Scenario: f.scenario, Jobs: f.jobs, Profiles: f.profiles, Variables: f.variables,
		JSONVariables: f.jsonVars, ScriptOutput: st.Stderr}
	for _, o := range f.overrides {
		ov, err := config.ParseOverride(o[0], o[1])
		if err != nil {
			return nil, nil, err
		}
		req.Overrides = append(req.Overrides, ov)
	}
	res, err := cfg.Resolve(req)
	if err != nil {
		return nil, nil, err
	}
	if swaps := wrkFallback(cfg, res, st.LookPath); len(swaps) > 0 {
		for _, o := range swaps {
			fmt.Fprintf(st.Stderr, "[%s] wrk is not installed here: using the built-in load generator (%s %s)\n", o.Service, o, o.Value)
		}
		req.Overrides = append(req.Overrides, swaps...)
		if res, err = cfg.Resolve(req); err != nil {
			return nil, nil, err
		}
	}
	// The warnings are those of the jobs that run: a variable wrk reads and the built-in
	// generator does not (script) is said.
	for _, w := range res.Warnings {
		fmt.Fprintf(st.Stderr, "crank: warning: %s\n", w)
	}
	for _, n := range res.Notes {
		fmt.Fprintf(st.Stderr, "crank: note: %s\n", n)
	}
	res.Variant = cfg.Variant(req, res)
	return res, scripts, nil
}

// wrkFallback swaps wrk for the built-in generator on the services that run on the embedded
// agent when wrk is not installed on this machine, so the first run needs nothing from apt.
// Services on other agents keep wrk: those machines are prepared for it (see agents/).
func wrkFallback(cfg *config.Config, res *config.Resolved, lookPath func(string) (string, error)) []config.Override {
	if !slices.Contains(cfg.Jobs(), "builtin") {
		return nil
	}
	if _, err := lookPath("wrk"); err == nil {
		return nil
	}
	var swaps []config.Override
	for _, s := range res.Services {
		if s.Job.Name == "wrk" && len(s.Endpoints) == 0 {
			swaps = append(swaps, config.Override{Service: s.Name, Path: "job", Value: "builtin"})
		}
	}
	return swaps
}

func writeDryRun(st State, path string, r *config.Resolved) int {
	b, err := r.DryRun()
	return writeDryRunJSON(st, "crank", path, b, err)
}

// writeDryRunJSON writes a --dry-run's JSON b (made with err) to path, "-" being stdout.
func writeDryRunJSON(st State, who, path string, b []byte, err error) int {
	if err == nil {
		if path == "-" {
			_, err = st.Stdout.Write(append(b, '\n'))
		} else {
			err = safewrite.Replace(path, append(b, '\n'), safewrite.Output)
		}
	}
	if err != nil {
		fmt.Fprintf(st.Stderr, "%s: --dry-run %s: %v\n", who, path, err)
		return ExitFailed
	}
	return ExitOK
}

// finish writes the JSON first (nothing is lost), then prints the tables, then compares.
// A failed write still prints the tables (and keeps the results in a temporary file). An
// interrupted run's results are neither published nor compared. A figure that is not a finite
// number (a script's, a precision's) is not measured, with why, and said: the rest is written.
func finish(ctx context.Context, st State, f *runFlags, run controller.Run, res *results.Result, log *slog.Logger) int {
	for _, note := range results.Finite(res) {
		fmt.Fprintf(st.Stderr, "crank: warning: %s\n", termtext.Clean(note))
	}
	for _, short := range results.ShortOfRate(res.JobResults.Jobs) {
		fmt.Fprintf(st.Stderr, "crank: warning: %s\n", termtext.Clean(short))
	}
	f.output.apply(res)
	written := true
	if f.output.csv != "" {
		if err := writeCSV(f.output.csv, res, time.Now()); err != nil {
			fmt.Fprintf(st.Stderr, "crank: writing %s: %v\n", f.output.csv, err)
			written = false
		} else {
			recordWritten(st, f.output.csv)
		}
	}
	written = (f.jsonOut == "" || writeJSON(st, f.jsonOut, res)) && written
	var order []string
	for _, s := range run.Services {
		if len(order) == 0 || order[len(order)-1] != s.Name {
			order = append(order, s.Name)
		}
	}
	tables := tablesTo(st, f)
	if res.Interrupted != nil {
		fmt.Fprint(tables, interruptNote(res.Interrupted))
	}
	var column results.Column
	chart := termchart.Options{Type: f.display.chartType, Scale: f.display.chartScale}
	if f.display.chart {
		column = termchart.Column(chart)
	}
	if err := results.WriteTablesWith(tables, res, order, column); err != nil {
		return ExitFailed
	}
	if f.display.chart {
		termchart.Timelines(tables, res, order, chart)
	}
	fmt.Fprint(tables, precisionNote(res.Precision))
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
	if cfg := influxConfig(st, f); cfg.Enabled() {
		sum, err := influx.Publish(ctx, cfg, res, log)
		if err != nil {
			fmt.Fprintf(st.Stderr, "crank: influxdb: %v\n", err)
			return ExitFailed
		}
		fmt.Fprintln(st.Stderr, sum.String())
	}
	return compareWith(st, f.compare, res)
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

func newSession() string {
	b := make([]byte, 3)
	_, _ = rand.Read(b)
	return time.Now().UTC().Format("20060102T150405Z") + "-" + hex.EncodeToString(b)
}
