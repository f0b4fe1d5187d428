// Package cmd is crank capacity's command: the flags' settings completed from the scenario's
// capacity: section, the search stepped on a running application (controller.Stepper), each step
// judged against the SLOs (internal/capacity), the knee's verdict, the tables, the result file
// and InfluxDB; with --matrix a search per variant. internal/cli only parses its flags.
package cmd

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strconv"
	"strings"
	"time"

	"github.com/crankshaft/crankshaft/internal/capacity"
	"github.com/crankshaft/crankshaft/internal/config"
	"github.com/crankshaft/crankshaft/internal/controller"
	"github.com/crankshaft/crankshaft/internal/diagnose"
	"github.com/crankshaft/crankshaft/internal/gate"
	"github.com/crankshaft/crankshaft/internal/loadtool"
	"github.com/crankshaft/crankshaft/internal/results"
	"github.com/crankshaft/crankshaft/internal/runner"
	"github.com/crankshaft/crankshaft/internal/sweep"
	"github.com/crankshaft/crankshaft/internal/threshold"
)

// ExitCannotTell is a search that cannot settle (crank compare's inconclusive).
const ExitCannotTell = gate.ExitInconclusive

// Flags are crank capacity's own flags, as the command line read them.
type Flags struct {
	SLOs    []threshold.Threshold
	SLOsSet bool // --slo given: the flags' SLOs replace the section's
	// Settings are the defaults with the flags over them; Given the settings' flags given, in
	// order (name, text): they win over the scenario's section.
	Settings capacity.Settings
	Given    [][2]string
	Axes     []sweep.Axis // --matrix: a search per variant
}

// search is one capacity search's settings and run options.
type search struct {
	c        *runner.Command
	src      runner.Source // the run options' scenario (a variant's under --matrix)
	slos     []threshold.Threshold
	settings capacity.Settings
}

// Run is `crank capacity` once its flags are read.
func Run(ctx context.Context, c *runner.Command, fl Flags) int {
	s := &search{c: c, src: c.Plan.Source, slos: fl.SLOs, settings: fl.Settings}
	if err := s.fromScenario(ctx, fl); err != nil {
		fmt.Fprintf(c.Stderr, "crank capacity: %v\n", err)
		return runner.ExitBadInput
	}
	if len(fl.Axes) > 0 {
		return s.runMatrix(ctx, fl.Axes)
	}
	prepared, err := s.check(ctx)
	if err != nil {
		fmt.Fprintf(c.Stderr, "crank capacity: %v\n", err)
		return runner.ExitBadInput
	}
	if c.DryRun != "" { // the inputs checked, the jobs of the first step written; nothing runs
		first, err := s.step(ctx, s.settings.Start)
		if err != nil {
			fmt.Fprintf(c.Stderr, "crank capacity: %v\n", err)
			return runner.ExitBadInput
		}
		return c.WriteDryRunOf(c.DryRun, first.Resolved)
	}
	ctl, err := c.Controller()
	if err != nil {
		fmt.Fprintf(c.Stderr, "crank capacity: %v\n", err)
		return runner.ExitBadInput
	}
	defer ctl.Close(context.WithoutCancel(ctx))
	return s.once(ctx, ctl, prepared)
}

// once runs the search, prints it, writes and publishes its answer, and gives the exit status.
func (s *search) once(ctx context.Context, ctl *controller.Controller, prepared *runner.Prepared) int {
	c := s.c
	started := time.Now()
	res, knee, searchErr := s.run(ctx, ctl, prepared)
	if errors.Is(searchErr, errStepper) {
		fmt.Fprintf(c.Stderr, "crank capacity: %v\n", searchErr)
		return runner.ExitBadInput
	}
	code := searchCode(ctx, c.Stderr, res, searchErr)
	out := s.answer(res, knee, code, started, runner.Variant(c.Plan.Run.Properties, prepared.Resolved))
	if s.write(ctx, out) != nil && code == runner.ExitOK {
		code = runner.ExitFailed
	}
	if code == runner.ExitInterrupted {
		return code
	}
	if !s.publish(ctx, out) {
		return runner.ExitFailed
	}
	return code
}

// fromScenario completes the flags with the scenario's `capacity:` section: each key a flag did
// not set. The SLOs of the flags replace the section's.
func (s *search) fromScenario(ctx context.Context, fl Flags) error {
	var sec *config.Capacity
	if len(s.src.Configs) > 0 && s.src.Scenario != "" {
		cfg, err := config.Load(ctx, s.src.Configs, s.src.LoadOptions())
		if err != nil {
			return err
		}
		if sec, err = cfg.Capacity(s.src.Scenario); err != nil {
			return err
		}
	}
	if sec != nil {
		if !fl.SLOsSet {
			s.slos = sec.SLOs
		}
		s.settings = sec.Settings
		for _, g := range fl.Given { // the flags over the section's keys
			if err := s.settings.Set(g[0], g[1]); err != nil {
				return fmt.Errorf("--%s %q: %v", g[0], g[1], err)
			}
		}
	}
	if len(s.slos) == 0 {
		return fmt.Errorf("crank capacity needs at least one --slo, e.g. --slo 'load:http/latency/99<10' (or capacity: slo: in the scenario)")
	}
	return nil
}

// errStepper marks a search that could not start its services.
var errStepper = errors.New("the services could not be started")

// plan is the plan of the search's runs of src, one a step, each prepared, measured and judged by
// internal/runner as a plain run is (runner.Prepared.Step).
//
// How a step maps onto a run's judgement (docs/CAPACITY.md, "How a step is judged"):
//   - The SLOs are the step's thresholds, and its only ones: a scenario's thresholds: and
//     --threshold are written for the scenario's own load, not for the rates a search tries
//     (runner.Verdict.NoScenarioThresholds). A crossed SLO fails the step as a crossed threshold
//     fails a run.
//   - --max-error-rate (1 % unless given; off disables it) applies to every step as to a run: a step
//     whose failed requests exceed it fails, whatever its latency (failures answered fast would
//     otherwise pass a latency SLO); so does a generator of a split load that fell behind.
//   - The search adds its own rule to the run's: the generator completed 95 % of the rate asked
//     (capacity.MinAchieved).
//   - The diagnosis is the run's; the probe's decision is the run's (--no-probe, --probe, the
//     diagnosis' reasons to skip it), but a step whose run would be probed is not
//     (runner.NoStepProbe). The knee's verdict is that diagnosis read without the step's rate cap.
//   - Each step is one measure (no --iterations, no --iterations auto): the search measures a rate
//     again itself (capacity.MaxMeasures). Crank's scripts (root results:, onResultsCreating/
//     Created, --script) run on each step's results before its SLOs, as on a run's (Prepared.Step),
//     so an SLO may name a figure they make; a scripts' error stops the search, failed.
func (s *search) plan(src runner.Source) runner.Plan {
	p := s.c.Plan
	p.Source, p.Auto, p.Executed = src, false, nil
	p.Run.Iterations = 1
	p.Verdict = runner.Verdict{Thresholds: s.slos, MaxErrorRate: s.c.Plan.Verdict.MaxErrorRate, NoScenarioThresholds: true}
	return p
}

// check prepares the scenario as given (its notes and warnings said, the SLOs checked against its
// services and figures) and refuses what would make the search meaningless.
func (s *search) check(ctx context.Context) (*runner.Prepared, error) {
	prepared, err := runner.Prepare(ctx, s.c.Env, s.plan(s.src))
	if err == nil {
		err = s.checkInput(ctx, prepared.Resolved)
	}
	return prepared, err
}

// run is one capacity search on the controller: the application started once, the load
// stepped; it returns the answer with the knee's verdict and the knee step's results.
func (s *search) run(ctx context.Context, ctl *controller.Controller, prepared *runner.Prepared) (capacity.Result, map[string]*results.JobResult, error) {
	stepper, err := ctl.NewStepper(prepared.Services(), loadName(prepared.Resolved))
	if err != nil {
		return capacity.Result{}, nil, fmt.Errorf("%w: %w", errStepper, err)
	}
	defer stepper.Close(context.WithoutCancel(ctx))
	m := &steps{s: s, stepper: stepper, loads: loadsOf(prepared.Resolved), started: time.Now()}
	res, searchErr := capacity.Search(ctx, s.settings.Options, m.measure)
	for _, t := range s.slos {
		res.SLOs = append(res.SLOs, t.String())
	}
	var knee map[string]*results.JobResult
	if k, i, ok := res.Knee(); ok && i < len(m.byStep) {
		knee = m.byStep[i]
		res.VerdictKind, res.Verdict = kneeVerdict(knee, k)
	}
	return res, knee, searchErr
}

// step prepares one step's run (its notes unsaid: the scenario's were said once): the rate, and
// the step's duration and warm-up, given to every service as top-level variables.
func (s *search) step(ctx context.Context, rate float64) (*runner.Prepared, error) {
	return runner.Prepare(ctx, s.c.Quiet(), s.plan(s.src.With(map[string]string{
		"rate":     strconv.FormatFloat(rate, 'f', 0, 64),
		"duration": strconv.FormatFloat(s.settings.StepDuration, 'f', -1, 64),
		"warmup":   strconv.FormatFloat(s.settings.StepWarmup, 'f', -1, 64),
	})))
}

// checkInput refuses what would make the search meaningless (the SLOs' figures and services are
// checked by runner.Prepare): a load whose arguments the rate does not reach (a rate is rendered into the load's
// arguments or the load cannot be stepped), and a load whose tool paces the rate but not in an
// open loop (bombardier's -r, internal/loadtool): its latency leaves out the requests a stall held
// back, so a step over the server's capacity can pass. (A tool that cannot take a rate at all, wrk,
// is refused by the configuration, naming the tools that can.)
func (s *search) checkInput(ctx context.Context, r *config.Resolved) error {
	if err := checkOpenLoop(r); err != nil {
		return err
	}
	const probe = 12345
	stepped, err := s.step(ctx, probe)
	if err != nil {
		return err
	}
	for _, s := range stepped.Services() {
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
