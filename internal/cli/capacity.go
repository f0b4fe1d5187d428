package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"strconv"
	"strings"
	"time"

	"github.com/crankshaft/crankshaft/internal/capacity"
	"github.com/crankshaft/crankshaft/internal/config"
	"github.com/crankshaft/crankshaft/internal/controller"
	"github.com/crankshaft/crankshaft/internal/diagnose"
	"github.com/crankshaft/crankshaft/internal/loadtool"
	"github.com/crankshaft/crankshaft/internal/results"
	"github.com/crankshaft/crankshaft/internal/runner"
	"github.com/crankshaft/crankshaft/internal/sweep"
	"github.com/crankshaft/crankshaft/internal/threshold"
)

const capacityUsage = `usage: crank capacity --config FILE --scenario NAME --slo 'load:http/latency/99<10' [--slo ...] [options]

Finds the highest request rate the application sustains within every SLO: keeps the application
running and steps the load's rate open-loop (the scenario's rate variable: crank load, bombardier
-r), doubling from --start-rate until a step fails, then bisecting until the capacity is known
within --precision. A step passes when every SLO holds and the generator completed at least 95 %
of the rate asked. A failure on a disturbed machine (machine-busy, steal) or on the SLOs alone is
measured again, and a rate that passes and fails (or fails below one that passed) is measured again
before any answer, at most 3 measures a rate; a search that cannot settle says so, with the bracket
(the highest rate that passed, the lowest that failed) and what would tell. The knee is explained
with the run's verdict (contention-bound, server-bound...).

  --slo EXPR           [service:]metric OP number, as --threshold (repeatable; also capacity: slo:
                       in the scenario); the figures are the catalog's (docs/MEASUREMENTS.md)
  --precision P        stop once the failing rate is within P of the passing one (default 5%)
  --start-rate R       the first rate tried, req/s (default 500)
  --max-steps N        at most N steps (default 16)
  --max-time D         at most D in all (default 10m)
  --step-duration S    each step's measured seconds (default 4), after --step-warmup S (default 1)
  --matrix KEY=V1,V2   a search per variant (crank sweep's matrix: a variable or <service>.<path>;
                       repeatable), then each variant's capacity side by side
  --json FILE          the result, with the steps under "capacity" at its root
  --dry-run FILE       check the inputs and write the first step's resolved jobs ("-": stdout)
  and every run option of crank (--config, --scenario, --profile, --variable, --<service>.<path>...).
Exit: 0 with a capacity, 1 when even the lowest rate fails on a quiet machine, 2 for bad input,
3 when the search cannot tell: its steps contradict each other, its lowest failure was on a
disturbed machine, or --max-steps or --max-time stopped it before --precision.
`

// capacityFlags are crank capacity's own flags; the rest are run flags.
type capacityFlags struct {
	slos []threshold.Threshold
	// settings are the defaults, then the scenario's section, then the flags (fromScenario).
	settings capacity.Settings
	given    [][2]string // the settings' flags given, in order (name, text): they win over the section
	run      *runFlags
	set      map[string]bool // the flags given
	axes     []sweep.Axis    // --matrix: a search per variant
}

func parseCapacityFlags(args []string, getenv func(string) string) (*capacityFlags, error) {
	cf := &capacityFlags{settings: capacity.DefaultSettings(), set: map[string]bool{}}
	var rest []string
	for i := 0; i < len(args); i++ {
		name, value, hasValue := strings.Cut(strings.TrimLeft(args[i], "-"), "=")
		name = flagName(name)
		switch name {
		case "slo", "precision", "start-rate", "max-steps", "max-time", "step-duration", "step-warmup", "matrix":
		default:
			rest = append(rest, args[i])
			continue
		}
		value, err := flagValue(args, &i, name, value, hasValue)
		if err != nil {
			return nil, err
		}
		if err := cf.setFlag(name, value); err != nil {
			return nil, err
		}
		cf.set[name] = true
	}
	rf, err := parseRunFlags(rest, getenv)
	if err != nil {
		return nil, err
	}
	cf.run = rf
	return cf, nil
}

func (cf *capacityFlags) setFlag(name, value string) error {
	switch name {
	case "slo":
		t, err := threshold.Parse(value)
		if err != nil {
			return usagef("--slo: %v", err)
		}
		t.Source = "--slo"
		cf.slos = append(cf.slos, t)
	case "matrix":
		a, err := sweep.ParseAxis(value)
		if err != nil {
			return usagef("%v", err)
		}
		cf.axes = append(cf.axes, a)
	default: // checked now, applied over the scenario's section in fromScenario
		if err := cf.settings.Set(name, value); err != nil {
			return usagef("--%s %q: %v", name, value, err)
		}
		cf.given = append(cf.given, [2]string{name, value})
	}
	return nil
}

// fromScenario completes the flags with the scenario's `capacity:` section: each key a flag did
// not set. The SLOs of the flags replace the section's.
func (cf *capacityFlags) fromScenario(ctx context.Context) error {
	f := cf.run
	var sec *config.Capacity
	if len(f.configs) > 0 && f.scenario != "" {
		cfg, err := config.Load(ctx, f.configs, f.loadOptions())
		if err != nil {
			return err
		}
		if sec, err = cfg.Capacity(f.scenario); err != nil {
			return err
		}
	}
	if sec != nil {
		if !cf.set["slo"] {
			cf.slos = sec.SLOs
		}
		cf.settings = sec.Settings
		for _, g := range cf.given { // the flags over the section's keys
			if err := cf.settings.Set(g[0], g[1]); err != nil {
				return usagef("--%s %q: %v", g[0], g[1], err)
			}
		}
	}
	if len(cf.slos) == 0 {
		return usagef("crank capacity needs at least one --slo, e.g. --slo 'load:http/latency/99<10' (or capacity: slo: in the scenario)")
	}
	return nil
}

// runCapacity is `crank capacity`.
func runCapacity(ctx context.Context, st State, args []string) int {
	if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
		fmt.Fprint(st.Stdout, capacityUsage)
		return ExitOK
	}
	cf, err := parseCapacityFlags(args, st.Getenv)
	if err == nil {
		err = cf.fromScenario(ctx)
	}
	if err != nil {
		fmt.Fprintf(st.Stderr, "crank capacity: %v\n", err)
		return ExitBadInput
	}
	if len(cf.axes) > 0 {
		return cf.runMatrix(ctx, st)
	}
	f := cf.run
	resolved, err := cf.check(ctx, st)
	if err != nil {
		fmt.Fprintf(st.Stderr, "crank capacity: %v\n", err)
		return ExitBadInput
	}
	if f.dryRun != "" { // the inputs checked, the jobs of the first step written; nothing runs
		first, err := cf.stepResolved(ctx, st, cf.settings.Start)
		if err != nil {
			fmt.Fprintf(st.Stderr, "crank capacity: %v\n", err)
			return ExitBadInput
		}
		return writeDryRun(st, f.dryRun, first)
	}
	log := logger(st.Stderr, f.verbose)
	ctl, err := newController(st, f, log, st.Stderr, nil)
	if err != nil {
		fmt.Fprintf(st.Stderr, "crank capacity: %v\n", err)
		return ExitBadInput
	}
	defer ctl.Close(context.WithoutCancel(ctx))
	started := time.Now()
	res, knee, searchErr := cf.search(ctx, st, ctl, resolved)
	if errors.Is(searchErr, errStepper) {
		fmt.Fprintf(st.Stderr, "crank capacity: %v\n", searchErr)
		return ExitBadInput
	}
	capacity.WriteTable(st.Stdout, res)
	fmt.Fprintln(st.Stdout, res.Summary())
	code := searchCode(ctx, st, res, searchErr)
	out := cf.answer(res, knee, code, started, runner.Variant(f.properties, resolved))
	if f.jsonOut != "" && !writeJSON(st, f.jsonOut, out) && code == ExitOK {
		code = ExitFailed
	}
	if code == ExitInterrupted {
		return code
	}
	if !cf.publish(ctx, st, out) {
		return ExitFailed
	}
	return code
}

// errStepper marks a search that could not start its services.
var errStepper = errors.New("the services could not be started")

// check resolves the scenario and refuses what would make the search meaningless.
func (cf *capacityFlags) check(ctx context.Context, st State) (*config.Resolved, error) {
	resolved, _, err := resolve(ctx, st, cf.run)
	if err == nil {
		err = cf.checkInput(ctx, st, resolved)
	}
	return resolved, err
}

// search runs one capacity search on the controller: the application started once, the load
// stepped; it returns the answer with the knee's verdict and the knee step's results.
func (cf *capacityFlags) search(ctx context.Context, st State, ctl *controller.Controller, resolved *config.Resolved) (capacity.Result, map[string]*results.JobResult, error) {
	stepper, err := ctl.NewStepper(servicesOf(resolved, cf.run.interval), loadName(resolved))
	if err != nil {
		return capacity.Result{}, nil, fmt.Errorf("%w: %w", errStepper, err)
	}
	defer stepper.Close(context.WithoutCancel(ctx))
	steps := &capacitySteps{cf: cf, st: st, stepper: stepper, loads: loadsOf(resolved), started: time.Now()}
	res, searchErr := capacity.Search(ctx, cf.settings.Options, steps.measure)
	for _, t := range cf.slos {
		res.SLOs = append(res.SLOs, t.String())
	}
	var knee map[string]*results.JobResult
	if k, i, ok := res.Knee(); ok && i < len(steps.byStep) {
		knee = steps.byStep[i]
		res.VerdictKind, res.Verdict = kneeVerdict(knee, k)
	}
	return res, knee, searchErr
}

// stepServices resolves the scenario for one step: the rate, and the step's duration and warm-up,
// given to every service as top-level variables.
func (cf *capacityFlags) stepServices(ctx context.Context, st State, rate float64) ([]controller.Service, error) {
	r, err := cf.stepResolved(ctx, st, rate)
	if err != nil {
		return nil, err
	}
	return servicesOf(r, cf.run.interval), nil
}

// stepResolved is the scenario resolved for one step.
func (cf *capacityFlags) stepResolved(ctx context.Context, st State, rate float64) (*config.Resolved, error) {
	f := *cf.run
	f.variables = maps.Clone(cf.run.variables)
	f.variables["rate"] = strconv.FormatFloat(rate, 'f', 0, 64)
	f.variables["duration"] = strconv.FormatFloat(cf.settings.StepDuration, 'f', -1, 64)
	f.variables["warmup"] = strconv.FormatFloat(cf.settings.StepWarmup, 'f', -1, 64)
	r, _, err := resolve(ctx, State{Stderr: io.Discard, Getenv: st.Getenv, LookPath: st.LookPath}, &f)
	return r, err
}

// checkCapacityInput refuses what would make the search meaningless: SLOs on unknown figures or
// services, a load whose arguments the rate does not reach (a rate is rendered into the load's
// arguments or the load cannot be stepped), and a load whose tool paces the rate but not in an
// open loop (bombardier's -r, internal/loadtool): its latency leaves out the requests a stall held
// back, so a step over the server's capacity can pass. (A tool that cannot take a rate at all, wrk,
// is refused by the configuration, naming the tools that can.)
func (cf *capacityFlags) checkInput(ctx context.Context, st State, r *config.Resolved) error {
	if err := runner.CheckThresholdServices(cf.slos, r); err != nil {
		return err
	}
	if err := runner.CheckThresholdMetrics(io.Discard, cf.slos, r, nil); err != nil {
		return err
	}
	if err := checkOpenLoop(r); err != nil {
		return err
	}
	const probe = 12345
	services, err := cf.stepServices(ctx, st, probe)
	if err != nil {
		return err
	}
	for _, s := range services {
		if s.Job.WaitForExit && !strings.Contains(s.Job.Arguments, strconv.Itoa(probe)) {
			return fmt.Errorf("service %q (job %q) does not take the rate variable in its arguments: crank capacity steps an open-loop rate; use --%s.job builtin (crank load's fixed rate)", s.Name, s.Job.Name, s.Name)
		}
	}
	return nil
}

// checkOpenLoop refuses a load whose tool (internal/loadtool) takes no rate (wrk's closed loop),
// or paces a rate but not in an open loop (bombardier's -r): its latency leaves out the requests a
// stalled server held back, so a step above the server's capacity can pass.
func checkOpenLoop(r *config.Resolved) error {
	for _, s := range r.Services {
		if !s.Job.WaitForExit {
			continue
		}
		vars := maps.Clone(s.Job.Variables)
		if vars == nil {
			vars = map[string]any{}
		}
		vars[loadtool.Rate] = 1 // the model at a rate
		m, ok := loadtool.Of(s.Job.Parser, s.Job.Executable, vars)
		switch {
		case !ok:
		case m.Honours[loadtool.Rate] == "":
			return fmt.Errorf("service %q (job %q) does not take the rate variable: %s runs a %s loop; crank capacity steps an open-loop rate: use --%s.job builtin (crank load's fixed rate)",
				s.Name, s.Job.Name, m.Tool, m.Loop, s.Name)
		case m.Loop != loadtool.Open:
			return fmt.Errorf("service %q (job %q): %s at a rate runs a %s loop whose latency is %s: a stalled server holds requests back instead of queueing them, so a step above its capacity can pass; crank capacity steps an open-loop rate: use --%s.job builtin (crank load's fixed rate, each latency from its request's intended send time)",
				s.Name, s.Job.Name, m.Tool, m.Loop, m.Latency, s.Name)
		}
	}
	return nil
}

func loadName(r *config.Resolved) string {
	for _, s := range r.Services {
		if s.Job.WaitForExit {
			return s.Name
		}
	}
	return ""
}

func loadsOf(r *config.Resolved) map[string]bool {
	out := map[string]bool{}
	for _, s := range r.Services {
		out[s.Name] = s.Job.WaitForExit
	}
	return out
}

func passText(s capacity.Step) string {
	if s.Pass {
		return "pass"
	}
	return "FAIL: " + strings.Join(s.Failed, "; ")
}

// kneeVerdict is the diagnosis of the step that failed just above the capacity, in the platform's
// words, with the server's CPU there.
func kneeVerdict(jobs map[string]*results.JobResult, k capacity.Step) (string, string) {
	// Every step is capped by the rate it asks: the knee's question is what else limits it, so the
	// diagnosis sees no cap.
	uncapped := map[string]*results.JobResult{}
	for name, jr := range jobs {
		if jr != nil && jr.Variables["rate"] != nil {
			c := *jr
			c.Variables = maps.Clone(jr.Variables)
			delete(c.Variables, "rate")
			jr = &c
		}
		uncapped[name] = jr
	}
	res := &results.Result{JobResults: results.JobResults{Jobs: uncapped}}
	diags := diagnose.Diagnose(res, diagnose.DefaultThresholds())
	res.JobResults.Diagnostics = diags
	v, ok := res.JobResults.Verdict()
	if !ok {
		return "", fmt.Sprintf("server CPU %.0f %% at the knee; no verdict", k.ServerCPU)
	}
	if v.Kind == "underloaded" && !k.FellBehind {
		// Underloaded is a closed loop's verdict (more connections would do more); an open-loop
		// step that kept up with its rate with nothing saturated failed on its tail, not its
		// throughput.
		return "tail-latency", fmt.Sprintf("server CPU %.0f %% of the machine at the knee (%.0f req/s asked, %.0f done): tail-latency: the server kept up with the rate and neither it nor the load is saturated; the SLO failed on the tail (p50 %.2f ms, p99 %.2f ms), not on throughput: look for pauses (garbage collection, the machine's other work), or lengthen --step-duration for a steadier p99",
			k.ServerCPU, k.Asked, k.Achieved, k.Latency50, k.Latency99)
	}
	return v.Kind, fmt.Sprintf("server CPU %.0f %% of the machine at the knee (%.0f req/s asked): %s: %s", k.ServerCPU, k.Asked, v.Kind, v.Message)
}
