// Package cli is the crank command line. State (arguments, environment, output streams) is
// injected, so tests run the whole CLI in-process.
package cli

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"slices"
	"time"

	"github.com/crankshaft/crankshaft/internal/agent"
	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/config"
	"github.com/crankshaft/crankshaft/internal/controller"
	"github.com/crankshaft/crankshaft/internal/diagnose"
	"github.com/crankshaft/crankshaft/internal/drivers/registry"
	"github.com/crankshaft/crankshaft/internal/gate"
	"github.com/crankshaft/crankshaft/internal/influx"
	"github.com/crankshaft/crankshaft/internal/loadgen"
	"github.com/crankshaft/crankshaft/internal/measure"
	"github.com/crankshaft/crankshaft/internal/results"
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
		return loadgen.Main(ctx, st.Args[1:], st.Stdout, st.Stderr)
	}
	f, err := parseRunFlags(st.Args, st.Getenv)
	if err != nil {
		fmt.Fprintf(st.Stderr, "crank: %v\n", err)
		return ExitBadInput
	}
	return runScenario(ctx, st, f)
}

func logger(st State, verbose bool) *slog.Logger {
	level := slog.LevelWarn
	if verbose {
		level = slog.LevelDebug
	}
	return slog.New(slog.NewTextHandler(st.Stderr, &slog.HandlerOptions{Level: level}))
}

func runScenario(ctx context.Context, st State, f *runFlags) int {
	log := logger(st, f.verbose)
	resolved, scripts, err := resolve(ctx, st, f)
	if err != nil {
		fmt.Fprintf(st.Stderr, "crank: %v\n", err)
		return ExitBadInput
	}
	if f.dryRun != "" {
		return writeDryRun(st, f.dryRun, resolved)
	}
	httpClient, err := controller.HTTPClient(f.agentCA)
	if err != nil {
		fmt.Fprintf(st.Stderr, "crank: --agent-ca: %v\n", err)
		return ExitBadInput
	}
	ctl := controller.New(controller.Options{
		Logger:     log,
		Progress:   st.Stderr,
		AgentToken: f.agentToken,
		HTTPClient: httpClient,
		StartEmbedded: func(ctx context.Context) (string, func(context.Context) error, error) {
			return agent.StartEmbedded(ctx, agent.Options{
				Parsers: registry.Builtin(), Catalog: measure.Default(), Logger: log, Hardware: "embedded",
			})
		},
	})
	defer ctl.Close(context.WithoutCancel(ctx))
	run := controller.Run{
		Scenario: resolved.Scenario, Profiles: resolved.Profiles, Iterations: f.iterations,
		Description: f.description, Session: f.session, Properties: f.properties,
	}
	if run.Session == "" {
		run.Session = newSession()
	}
	for _, s := range resolved.Services {
		if f.interval > 0 { // crank's --interval: every job's sampling interval
			s.Job.Interval = api.Duration(f.interval * float64(time.Second))
		}
		run.Services = append(run.Services, controller.Service{Name: s.Name, Job: s.Job, Endpoints: s.Endpoints})
	}
	res, err := ctl.Execute(ctx, run)
	if err != nil {
		fmt.Fprintf(st.Stderr, "crank: %v\n", err)
		return ExitFailed
	}
	res.JobResults.Diagnostics = diagnose.Diagnose(res, diagnose.DefaultThresholds())
	if err := applyScripts(scripts, f.scripts, res, st.Stderr); err != nil {
		fmt.Fprintf(st.Stderr, "crank: %v\n", err)
		if code := finish(ctx, st, f, run, res, log); code != ExitOK {
			return code
		}
		return ExitFailed
	}
	return finish(ctx, st, f, run, res, log)
}

func resolve(ctx context.Context, st State, f *runFlags) (*config.Resolved, *config.Scripts, error) {
	cfg := config.Blank()
	if len(f.configs) > 0 {
		var err error
		if cfg, err = config.Load(ctx, f.configs, config.LoadOptions{Strict: f.strict}); err != nil {
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
	for _, w := range res.Warnings {
		fmt.Fprintf(st.Stderr, "crank: warning: %s\n", w)
	}
	for _, n := range res.Notes {
		fmt.Fprintf(st.Stderr, "crank: note: %s\n", n)
	}
	if swaps := wrkFallback(cfg, res, st.LookPath); len(swaps) > 0 {
		for _, o := range swaps {
			fmt.Fprintf(st.Stderr, "[%s] wrk is not installed here: using the built-in load generator (%s %s)\n", o.Service, o, o.Value)
		}
		req.Overrides = append(req.Overrides, swaps...)
		res, err = cfg.Resolve(req)
	}
	return res, scripts, err
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
	if err == nil {
		if path == "-" {
			_, err = st.Stdout.Write(append(b, '\n'))
		} else {
			err = os.WriteFile(path, append(b, '\n'), 0o644)
		}
	}
	if err != nil {
		fmt.Fprintf(st.Stderr, "crank: --dry-run %s: %v\n", path, err)
		return ExitFailed
	}
	return ExitOK
}

// finish writes the JSON first (nothing is lost), then prints the tables, then compares.
func finish(ctx context.Context, st State, f *runFlags, run controller.Run, res *results.Result, log *slog.Logger) int {
	f.output.apply(res)
	if f.output.csv != "" {
		if err := writeCSV(f.output.csv, res, time.Now()); err != nil {
			fmt.Fprintf(st.Stderr, "crank: writing %s: %v\n", f.output.csv, err)
			return ExitFailed
		}
	}
	if f.jsonOut != "" {
		if err := results.WriteFile(f.jsonOut, res); err != nil {
			fmt.Fprintf(st.Stderr, "crank: writing %s: %v\n", f.jsonOut, err)
			return ExitFailed
		}
	}
	var order []string
	for _, s := range run.Services {
		if len(order) == 0 || order[len(order)-1] != s.Name {
			order = append(order, s.Name)
		}
	}
	if err := results.WriteTables(st.Stdout, res, order); err != nil {
		return ExitFailed
	}
	if f.jsonOut != "" {
		fmt.Fprintf(st.Stderr, "results written to %s\n", f.jsonOut)
	}
	if cfg := influxConfig(st, f); cfg.Enabled() {
		sum, err := influx.Publish(ctx, cfg, res, log)
		if err != nil {
			fmt.Fprintf(st.Stderr, "crank: influxdb: %v\n", err)
			return ExitFailed
		}
		fmt.Fprintln(st.Stderr, sum.String())
	}
	if f.compare != "" {
		base, err := results.ReadFile(f.compare)
		if err != nil {
			fmt.Fprintf(st.Stderr, "crank: --compare: %v\n", err)
			return ExitBadInput
		}
		rep, err := gate.CompareResults(base, res, gate.CompareOptions{}, st.Stdout)
		if err != nil {
			fmt.Fprintf(st.Stderr, "crank: --compare: %v\n", err)
			return ExitBadInput
		}
		if rep.Regressed() {
			return ExitFailed
		}
	}
	return ExitOK
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
