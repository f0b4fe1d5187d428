package sweep

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"

	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/config"
	"github.com/crankshaft/crankshaft/internal/controller"
	"github.com/crankshaft/crankshaft/internal/gate"
	"github.com/crankshaft/crankshaft/internal/output"
	"github.com/crankshaft/crankshaft/internal/results"
	"github.com/crankshaft/crankshaft/internal/runner"
)

// DefaultIterations is a sweep's runs per variant: 3 a side give crank compare an interval at
// all; a fourth narrows it.
const DefaultIterations = 4

// Flags are crank sweep's own flags, as the command line read them.
type Flags struct {
	Axes     []Axis
	Baseline string
	Resume   bool
}

// command is one crank sweep: the command line's run options and the sweep's flags, completed
// from the scenario's sweep: section.
type command struct {
	c          *runner.Command
	fl         Flags
	iterations int
}

// Main is `crank sweep` once its flags are read (c.Plan.Run.Iterations 0: --iterations not given).
func Main(ctx context.Context, c *runner.Command, fl Flags) int {
	cmd := &command{c: c, fl: fl, iterations: c.Plan.Run.Iterations}
	if err := cmd.fromScenario(ctx); err != nil {
		fmt.Fprintf(c.Stderr, "crank sweep: %v\n", err)
		return runner.ExitBadInput
	}
	file, err := cmd.open()
	if err != nil {
		fmt.Fprintf(c.Stderr, "crank sweep: %v\n", err)
		return runner.ExitBadInput
	}
	prepared, services, err := cmd.prepare(ctx, file)
	if err != nil {
		fmt.Fprintf(c.Stderr, "crank sweep: %v\n", err)
		return runner.ExitBadInput
	}
	if c.DryRun != "" {
		return cmd.dryRun(file, services)
	}
	ctl, err := c.Controller()
	if err != nil {
		fmt.Fprintf(c.Stderr, "crank sweep: %v\n", err)
		return runner.ExitBadInput
	}
	defer ctl.Close(context.WithoutCancel(ctx))
	runErr := Run(ctx, file, cmd.options(ctl, prepared, services))
	c.Written(c.JSON)
	if err := file.WriteReport(c.Stdout, gate.CompareOptions{}); err != nil {
		return runner.ExitFailed
	}
	fmt.Fprintf(c.Stderr, "sweep written to %s (as a page with charts: crank report %s -o sweep.html)\n", c.JSON, c.JSON)
	switch {
	case errors.Is(runErr, ErrInterrupted):
		fmt.Fprintf(c.Stderr, "crank sweep: interrupted after %d of %d runs; continue with the same command and --resume\n", file.Done, file.Total())
		return runner.ExitFailed
	case runErr != nil:
		fmt.Fprintf(c.Stderr, "crank sweep: %v (the runs done are kept; continue with --resume)\n", runErr)
		return runner.ExitFailed
	}
	return runner.ExitOK
}

// fromScenario completes the flags with the scenario's `sweep:` section: its matrix when no
// --matrix is given, its iterations and baseline when the flags do not set them.
func (cmd *command) fromScenario(ctx context.Context) error {
	src := cmd.c.Plan.Source
	cfg, err := config.Load(ctx, src.Configs, src.LoadOptions())
	if err != nil {
		return err
	}
	sec, err := cfg.Sweep(src.Scenario)
	if err != nil {
		return err
	}
	fl := &cmd.fl
	if sec != nil {
		if len(fl.Axes) == 0 && !fl.Resume {
			for _, a := range sec.Matrix {
				fl.Axes = append(fl.Axes, Axis{Key: a.Key, Values: a.Values})
			}
		}
		cmd.iterations = cmp.Or(cmd.iterations, sec.Iterations)
		fl.Baseline = cmp.Or(fl.Baseline, sec.Baseline)
	}
	if !fl.Resume {
		cmd.iterations = cmp.Or(cmd.iterations, DefaultIterations)
		if err := CheckAxes(fl.Axes); err != nil {
			return fmt.Errorf("%w (or give the scenario a sweep: section)", err)
		}
	}
	for _, a := range fl.Axes {
		for _, v := range a.Values {
			if _, err := api.ParseCPUSet(v); a.IsCores() && err != nil {
				return fmt.Errorf("--matrix %s: %w", a.Key, err)
			}
		}
	}
	return nil
}

// open starts a new sweep file, or reads the one to resume.
func (cmd *command) open() (*File, error) {
	src, path, fl := cmd.c.Plan.Source, cmd.c.JSON, cmd.fl
	if !fl.Resume {
		return NewFile(src.Scenario, src.Profiles, fl.Axes, fl.Baseline, cmd.iterations)
	}
	file, err := ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--resume: %w", err)
	}
	if file.Scenario != src.Scenario {
		return nil, fmt.Errorf("--resume: %s is a sweep of scenario %q, not %q", path, file.Scenario, src.Scenario)
	}
	if err := file.Resume(fl.Axes, cmd.iterations); err != nil {
		return nil, err
	}
	if fl.Baseline != "" {
		b, err := NewFile(file.Scenario, nil, file.Axes, fl.Baseline, 1)
		if err != nil {
			return nil, err
		}
		file.Baseline = b.Baseline
	}
	return file, nil
}

// prepare resolves every variant before anything runs (through the run library, which checks the
// thresholds its runs are judged by), and says which services share the swept cores.
func (cmd *command) prepare(ctx context.Context, file *File) (map[string]*runner.Prepared, map[string][]controller.Service, error) {
	prepared := make(map[string]*runner.Prepared, len(file.Variants))
	services := make(map[string][]controller.Service, len(file.Variants))
	variants := make([]Cell, len(file.Variants))
	for i, v := range file.Variants {
		plan := cmd.c.Plan
		plan.Run.Iterations = cmd.iterations
		plan.Source = VariantSource(plan.Source, file.Axes, v.Cell)
		p, err := runner.Prepare(ctx, cmd.c.Env, plan)
		if err != nil {
			return nil, nil, fmt.Errorf("variant %s: %w", v.Name, err)
		}
		prepared[v.Name], services[v.Name], variants[i] = p, p.Services(), v.Cell
	}
	for _, n := range sharedCoresNotes(file.Axes, variants, services) {
		fmt.Fprintln(cmd.c.Stderr, n)
	}
	return prepared, services, nil
}

// noProbe is why a sweep's runs have no probe: each is one point of the sweep, not a question.
const noProbe = "a sweep does not probe"

// options runs each variant once on the controller, gives each run to crank's scripts and judges
// the variant's runs merged through the run library, and writes each run to the outputs a sweep
// has (InfluxDB, when configured) with its variant's settings as its tags.
func (cmd *command) options(ctl runner.Executor, prepared map[string]*runner.Prepared, services map[string][]controller.Service) Options {
	c := cmd.c
	session := cmp.Or(c.Plan.Run.Session, runner.NewSession())
	opts := Options{Path: c.JSON, Progress: c.Stderr,
		Judge: func(v Cell, r *results.Result) { prepared[v.Name].JudgeMerged(r, noProbe) },
		Run: func(ctx context.Context, v Cell) (*results.Result, error) {
			run := controller.Run{Scenario: c.Plan.Source.Scenario, Profiles: c.Plan.Source.Profiles, Services: services[v.Name],
				Iterations: 1, Description: c.Plan.Run.Description, Session: session, Properties: maps.Clone(c.Plan.Run.Properties)}
			res, err := ctl.Execute(ctx, run)
			if err != nil {
				return nil, err
			}
			// The scripts run on this run's own results and diagnosis, once, before Run merges
			// them into the variant's (their figures averaged as the others'); the merged results
			// are judged without them (JudgeMerged).
			return res, prepared[v.Name].Script(res, noProbe)
		}}
	if o, err := c.Output(output.Influx, ""); err == nil {
		opts.Outputs = append(opts.Outputs, o)
	} else if !errors.Is(err, output.ErrNotConfigured) {
		fmt.Fprintf(c.Stderr, "crank sweep: %v\n", err)
	}
	return opts
}

// VariantSource is the run options' source with the variant's settings over them: an axis of a
// variable sets that variable, an axis of a <service>.<path> adds that override.
func VariantSource(src runner.Source, axes []Axis, v Cell) runner.Source {
	vars := map[string]string{}
	var overrides [][2]string
	for i, a := range axes {
		if a.Service() == "" {
			vars[a.Key] = v.Settings[i].Value
		} else {
			overrides = append(overrides, [2]string{a.Key, v.Settings[i].Value})
		}
	}
	return src.With(vars).Override(overrides...)
}

// dryRun writes every variant's resolved jobs, in run order, as JSON (path "-": stdout) and runs
// nothing.
func (cmd *command) dryRun(file *File, services map[string][]controller.Service) int {
	type variant struct {
		Name     string             `json:"name"`
		Services map[string]api.Job `json:"services"`
	}
	var out []variant
	for _, v := range file.Variants {
		jobs := map[string]api.Job{}
		for _, s := range services[v.Name] {
			jobs[s.Name] = s.Job
		}
		out = append(out, variant{Name: v.Name, Services: jobs})
	}
	b, err := json.MarshalIndent(map[string]any{"variants": out}, "", "  ")
	return cmd.c.WriteDryRun("crank sweep", cmd.c.DryRun, b, err)
}
