package runner

import (
	"context"
	"fmt"
	"io"
	"maps"
	"os/exec"
	"slices"
	"time"

	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/config"
	"github.com/crankshaft/crankshaft/internal/controller"
)

// Source is what a run's scenario is resolved from: the files, the scenario (or crank's --job
// list), profiles, variables and --<service>.<path> overrides, with the --script names.
type Source struct {
	Configs   []string
	Strict    bool
	ImportMap []config.ImportMapping // URL prefixes read from local checkouts (--import-map)
	Scenario  string
	Jobs      []string // crank's --job NAME: these jobs instead of a scenario
	Profiles  []string
	Variables map[string]string
	JSONVars  map[string]any
	Overrides [][2]string // flag name without dashes ("load.variables.connections"), value
	Scripts   []string    // --script NAME, run after the results exist
	Interval  float64     // --interval seconds for every job (0: each job's own)
}

// LoadOptions are the options its configurations are loaded with.
func (s Source) LoadOptions() config.LoadOptions {
	return config.LoadOptions{Strict: s.Strict, ImportMap: s.ImportMap}
}

// With is the source with variables set over its own (a copy; s is unchanged).
func (s Source) With(vars map[string]string) Source {
	s.Variables = maps.Clone(s.Variables)
	if s.Variables == nil {
		s.Variables = map[string]string{}
	}
	maps.Copy(s.Variables, vars)
	return s
}

// Resolver resolves a loaded configuration for a request: (*config.Config).Resolve, unless a test
// counts the calls.
type Resolver func(cfg *config.Config, req config.Request) (*config.Resolved, error)

// Env is what a run reads and writes besides its plan.
type Env struct {
	Stdout io.Writer // the thresholds
	Stderr io.Writer // notes, warnings, the probe's lines, why the run failed
	// Progress receives the commands shown with -v (default Stderr).
	Progress io.Writer
	// LookPath finds programs on this machine (default exec.LookPath).
	LookPath func(string) (string, error)
	// Resolve is config's resolver (default (*config.Config).Resolve).
	Resolve Resolver
}

func (e Env) withDefaults() Env {
	if e.Stdout == nil {
		e.Stdout = io.Discard
	}
	if e.Stderr == nil {
		e.Stderr = io.Discard
	}
	if e.Progress == nil {
		e.Progress = e.Stderr
	}
	if e.LookPath == nil {
		e.LookPath = exec.LookPath
	}
	if e.Resolve == nil {
		e.Resolve = (*config.Config).Resolve
	}
	return e
}

// Resolve loads the source's files and resolves its scenario, saying the resolver's warnings and
// notes; the scripts are the configuration's root scripts, every --script checked.
func Resolve(ctx context.Context, env Env, src Source) (*config.Resolved, *config.Scripts, error) {
	env = env.withDefaults()
	cfg := config.Blank()
	if len(src.Configs) > 0 {
		var err error
		if cfg, err = config.Load(ctx, src.Configs, src.LoadOptions()); err != nil {
			return nil, nil, err
		}
		if cfg, err = withOwnApps(ctx, env.Stderr, cfg, src); err != nil {
			return nil, nil, err
		}
	}
	scripts, err := checkScripts(cfg, src.Scripts)
	if err != nil {
		return nil, nil, err
	}
	req := config.Request{Scenario: src.Scenario, Jobs: src.Jobs, Profiles: src.Profiles, Variables: src.Variables,
		JSONVariables: src.JSONVars, ScriptOutput: env.Stderr}
	for _, o := range src.Overrides {
		ov, err := config.ParseOverride(o[0], o[1])
		if err != nil {
			return nil, nil, err
		}
		req.Overrides = append(req.Overrides, ov)
	}
	res, err := env.Resolve(cfg, req)
	if err != nil {
		return nil, nil, err
	}
	if swaps := wrkFallback(cfg, res, env.LookPath); len(swaps) > 0 {
		for _, o := range swaps {
			fmt.Fprintf(env.Stderr, "[%s] wrk is not installed here: using the built-in load generator (%s %s)\n", o.Service, o, o.Value)
		}
		req.Overrides = append(req.Overrides, swaps...)
		if res, err = env.Resolve(cfg, req); err != nil {
			return nil, nil, err
		}
	}
	// The warnings are those of the jobs that run: a variable wrk reads and the built-in
	// generator does not (script) is said.
	for _, w := range res.Warnings {
		fmt.Fprintf(env.Stderr, "crank: warning: %s\n", w)
	}
	for _, n := range res.Notes {
		fmt.Fprintf(env.Stderr, "crank: note: %s\n", n)
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

// Services is what the controller runs of a resolved scenario, with crank's --interval (seconds,
// 0: each job's own) as every job's sampling interval.
func Services(res *config.Resolved, interval float64) []controller.Service {
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
