package cli

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/config"
	"github.com/crankshaft/crankshaft/internal/controller"
	"github.com/crankshaft/crankshaft/internal/gate"
	"github.com/crankshaft/crankshaft/internal/influx"
	"github.com/crankshaft/crankshaft/internal/results"
	"github.com/crankshaft/crankshaft/internal/runner"
	"github.com/crankshaft/crankshaft/internal/sweep"
)

// Sweep defaults.
const (
	DefaultSweepIterations = 4 // 3 a side give crank compare an interval at all; a fourth narrows it
	DefaultSweepFile       = "sweep.json"
)

const sweepUsage = `usage: crank sweep --config FILE --scenario NAME --matrix KEY=V1,V2 [--matrix ...] [options]

Runs every variant of the matrix (the product of its axes) --iterations times, in interleaved
ABBA rounds, then prints per metric each variant's mean, CV and ratio to the baseline with crank
compare's verdict, the one-axis contrasts, scaling over cpuSet core counts, and each diagnosis.

  --matrix KEY=V1,V2   an axis: KEY is a variable (dispatch=shared,partitioned) or a job key as
                       --<service>.<path> overrides name it (application.cpuSet=0,0-1); values
                       holding commas are separated by "|" (application.cpuSet=0|0-1,4)
  --baseline NAME      the variant the others are compared with (default: the first)
  --iterations N       runs per variant (default 4)
  --json FILE          the sweep file, written after every run (default sweep.json)
  --resume             continue the sweep in --json FILE where it stopped
  --dry-run FILE       write every variant's resolved jobs as JSON ("-" for stdout); run nothing
  and every run option of crank (--config, --scenario, --profile, --variable, --<service>.<path>,
  --agent-token, --influx-*...).

Without --matrix, the scenario's sweep: section gives the matrix (and iterations, baseline):
  sweep: {iterations: 4, baseline: NAME, matrix: {dispatch: [shared, partitioned], application.cpuSet: ['0', 0-1]}}

Compare any two variants: crank compare FILE#VARIANT FILE#VARIANT (a name or a 1-based index).
`

// sweepFlags are crank sweep's own flags; the rest are run flags.
type sweepFlags struct {
	axes     []sweep.Axis
	baseline string
	resume   bool
	run      *runFlags
}

func parseSweepFlags(args []string, getenv func(string) string) (*sweepFlags, error) {
	sf := &sweepFlags{}
	var rest []string
	iterations := false
	for i := 0; i < len(args); i++ {
		name, value, hasValue := strings.Cut(strings.TrimLeft(args[i], "-"), "=")
		name = flagName(name) // crank's -i and --Iterations too
		switch name {
		case "resume":
			sf.resume = true
			continue
		case "matrix", "baseline":
		case "iterations":
			iterations = true
			rest = append(rest, args[i])
			continue
		default:
			rest = append(rest, args[i])
			continue
		}
		value, err := flagValue(args, &i, name, value, hasValue)
		if err != nil {
			return nil, err
		}
		if name == "baseline" {
			sf.baseline = value
			continue
		}
		a, err := sweep.ParseAxis(value)
		if err != nil {
			return nil, usagef("%v", err)
		}
		sf.axes = append(sf.axes, a)
	}
	f, err := parseRunFlags(rest, getenv)
	if err != nil {
		return nil, err
	}
	switch {
	case len(f.compare) > 0:
		return nil, usagef("crank sweep: --compare is not supported: the sweep compares its variants with --baseline")
	}
	if !iterations {
		f.iterations = 0 // the scenario's sweep section, else DefaultSweepIterations
	}
	if f.jsonOut == "" {
		f.jsonOut = DefaultSweepFile
	}
	sf.run = f
	return sf, nil
}

// fromScenario completes the flags with the scenario's `sweep:` section: its matrix when no
// --matrix is given, its iterations and baseline when the flags do not set them.
func (sf *sweepFlags) fromScenario(ctx context.Context) error {
	f := sf.run
	cfg, err := config.Load(ctx, f.configs, config.LoadOptions{ImportMap: f.importMap})
	if err != nil {
		return err
	}
	sec, err := cfg.Sweep(f.scenario)
	if err != nil {
		return err
	}
	if sec != nil {
		if len(sf.axes) == 0 && !sf.resume {
			for _, a := range sec.Matrix {
				sf.axes = append(sf.axes, sweep.Axis{Key: a.Key, Values: a.Values})
			}
		}
		f.iterations = cmp.Or(f.iterations, sec.Iterations)
		sf.baseline = cmp.Or(sf.baseline, sec.Baseline)
	}
	if !sf.resume {
		f.iterations = cmp.Or(f.iterations, DefaultSweepIterations)
		if err := sweep.CheckAxes(sf.axes); err != nil {
			return fmt.Errorf("%w (or give the scenario a sweep: section)", err)
		}
	}
	for _, a := range sf.axes {
		for _, v := range a.Values {
			if _, err := api.ParseCPUSet(v); a.IsCores() && err != nil {
				return fmt.Errorf("--matrix %s: %w", a.Key, err)
			}
		}
	}
	return nil
}

func runSweep(ctx context.Context, st State, args []string) int {
	if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
		fmt.Fprint(st.Stdout, sweepUsage)
		return ExitOK
	}
	sf, err := parseSweepFlags(args, st.Getenv)
	if err != nil {
		fmt.Fprintf(st.Stderr, "crank: %v\n", err)
		return ExitBadInput
	}
	if err := sf.fromScenario(ctx); err != nil {
		fmt.Fprintf(st.Stderr, "crank sweep: %v\n", err)
		return ExitBadInput
	}
	f := sf.run
	file, err := openSweep(sf)
	if err != nil {
		fmt.Fprintf(st.Stderr, "crank sweep: %v\n", err)
		return ExitBadInput
	}
	prepared := make(map[string]*runner.Prepared, len(file.Variants))
	services := make(map[string][]controller.Service, len(file.Variants))
	for _, v := range file.Variants { // every variant resolves before anything runs
		if prepared[v.Name], err = prepareVariant(ctx, st, f, file.Axes, v.Variant); err != nil {
			fmt.Fprintf(st.Stderr, "crank sweep: variant %s: %v\n", v.Name, err)
			return ExitBadInput
		}
		services[v.Name] = prepared[v.Name].Services()
	}
	variants := make([]sweep.Variant, len(file.Variants))
	for i, v := range file.Variants {
		variants[i] = v.Variant
	}
	for _, n := range sharedCoresNotes(file.Axes, variants, services) {
		fmt.Fprintln(st.Stderr, n)
	}
	if f.dryRun != "" {
		return writeSweepDryRun(st, f.dryRun, file, services)
	}
	log := logger(st.Stderr, f.verbose)
	ctl, err := newController(st, f, log, st.Stderr, nil)
	if err != nil {
		fmt.Fprintf(st.Stderr, "crank sweep: %v\n", err)
		return ExitBadInput
	}
	defer ctl.Close(context.WithoutCancel(ctx))
	session := f.session
	if session == "" {
		session = newSession()
	}
	opts := sweep.Options{Path: f.jsonOut, Progress: st.Stderr,
		Judge: func(v sweep.Variant, r *results.Result) { prepared[v.Name].Judge(r, "a sweep does not probe") },
		Run: func(ctx context.Context, v sweep.Variant) (*results.Result, error) {
			run := controller.Run{Scenario: f.scenario, Profiles: f.profiles, Services: services[v.Name],
				Iterations: 1, Description: f.description, Session: session, Properties: maps.Clone(f.properties)}
			return ctl.Execute(ctx, run)
		}}
	if cfg := influxConfig(st, f); cfg.Enabled() {
		opts.Published = func(ctx context.Context, v sweep.Variant, r *results.Result) error {
			// The variant tag is the variant's settings (influx.VariantOf: sorted name=value pairs),
			// as a run with those --variable values would have.
			tagged := *r
			tagged.Variant = map[string]string{}
			for _, st := range v.Settings {
				tagged.Variant[sweep.Axis{Key: st.Key}.Short()] = st.Value
			}
			sum, err := influx.Publish(ctx, cfg, &tagged, log)
			if err != nil {
				return fmt.Errorf("influxdb: %w", err)
			}
			fmt.Fprintln(st.Stderr, sum.String())
			return nil
		}
	}
	runErr := sweep.Run(ctx, file, opts)
	recordWritten(st, f.jsonOut)
	if err := file.WriteReport(st.Stdout, gate.CompareOptions{}); err != nil {
		return ExitFailed
	}
	fmt.Fprintf(st.Stderr, "sweep written to %s (as a page with charts: crank report %s -o sweep.html)\n", f.jsonOut, f.jsonOut)
	switch {
	case errors.Is(runErr, sweep.ErrInterrupted):
		fmt.Fprintf(st.Stderr, "crank sweep: interrupted after %d of %d runs; continue with the same command and --resume\n", file.Done, file.Total())
		return ExitFailed
	case runErr != nil:
		fmt.Fprintf(st.Stderr, "crank sweep: %v (the runs done are kept; continue with --resume)\n", runErr)
		return ExitFailed
	}
	return ExitOK
}

// openSweep starts a new sweep file, or reads the one to resume.
func openSweep(sf *sweepFlags) (*sweep.File, error) {
	f := sf.run
	if !sf.resume {
		return sweep.NewFile(f.scenario, f.profiles, sf.axes, sf.baseline, f.iterations)
	}
	file, err := sweep.ReadFile(f.jsonOut)
	if err != nil {
		return nil, fmt.Errorf("--resume: %w", err)
	}
	if file.Scenario != f.scenario {
		return nil, fmt.Errorf("--resume: %s is a sweep of scenario %q, not %q", f.jsonOut, file.Scenario, f.scenario)
	}
	if err := file.Resume(sf.axes, f.iterations); err != nil {
		return nil, err
	}
	if sf.baseline != "" {
		b, err := sweep.NewFile(file.Scenario, nil, file.Axes, sf.baseline, 1)
		if err != nil {
			return nil, err
		}
		file.Baseline = b.Baseline
	}
	return file, nil
}

// prepareVariant resolves the scenario with the variant's settings over the command line's, and
// checks the thresholds the variant's runs are judged by.
func prepareVariant(ctx context.Context, st State, f *runFlags, axes []sweep.Axis, v sweep.Variant) (*runner.Prepared, error) {
	return runner.Prepare(ctx, runEnv(st), variantFlags(f, axes, v).plan())
}

// variantFlags are the command line's flags with the variant's settings over them: an axis of a
// variable sets that variable, an axis of a <service>.<path> adds that override.
func variantFlags(f *runFlags, axes []sweep.Axis, v sweep.Variant) *runFlags {
	vf := *f
	vf.variables = maps.Clone(f.variables)
	vf.overrides = slices.Clone(f.overrides)
	for i, a := range axes {
		if a.Service() == "" {
			vf.variables[a.Key] = v.Settings[i].Value
		} else {
			vf.overrides = append(vf.overrides, [2]string{a.Key, v.Settings[i].Value})
		}
	}
	return &vf
}

// writeSweepDryRun writes every variant's resolved jobs, in run order, as JSON (path "-":
// stdout) and runs nothing.
func writeSweepDryRun(st State, path string, file *sweep.File, services map[string][]controller.Service) int {
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
	return writeDryRunJSON(st, "crank sweep", path, b, err)
}
