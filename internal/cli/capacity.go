package cli

import (
	"context"
	"fmt"

	"github.com/crankshaft/crankshaft/internal/capacity"
	capacitycmd "github.com/crankshaft/crankshaft/internal/capacity/cmd"
	"github.com/crankshaft/crankshaft/internal/sweep"
	"github.com/crankshaft/crankshaft/internal/threshold"
)

const capacityUsage = `usage: crank capacity --config FILE --scenario NAME --slo 'load:http/latency/99<10' [--slo ...] [options]

Finds the highest request rate the application sustains within every SLO: keeps the application
running and steps the load's rate open-loop (the scenario's rate variable: crank load, bombardier
-r), doubling from --start-rate until a step fails, then bisecting until the capacity is known
within --precision. A step passes when every SLO holds, at most --max-error-rate of its requests
failed (as in a run) and the generator completed at least 95 % of the rate asked. A failure on a disturbed machine (machine-busy, steal) or on the SLOs alone is
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
	fl  capacitycmd.Flags
	run *runFlags
}

func parseCapacityFlags(args []string, getenv func(string) string) (*capacityFlags, error) {
	cf := &capacityFlags{fl: capacitycmd.Flags{Settings: capacity.DefaultSettings()}}
	own := []string{"slo", "precision", "start-rate", "max-steps", "max-time", "step-duration", "step-warmup", "matrix"}
	rest, err := splitFlags(args, own, nil, func(name, value string, _ bool) error { return cf.setFlag(name, value) })
	if err != nil {
		return nil, err
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
		cf.fl.SLOs, cf.fl.SLOsSet = append(cf.fl.SLOs, t), true
	case "matrix":
		a, err := sweep.ParseAxis(value)
		if err != nil {
			return usagef("%v", err)
		}
		cf.fl.Axes = append(cf.fl.Axes, a)
	default: // checked now, applied over the scenario's section
		if err := cf.fl.Settings.Set(name, value); err != nil {
			return usagef("--%s %q: %v", name, value, err)
		}
		cf.fl.Given = append(cf.fl.Given, [2]string{name, value})
	}
	return nil
}

// runCapacity is `crank capacity`: its flags read, internal/capacity/cmd does the rest.
func runCapacity(ctx context.Context, st State, args []string) int {
	if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
		fmt.Fprint(st.Stdout, capacityUsage)
		return ExitOK
	}
	cf, err := parseCapacityFlags(args, st.Getenv)
	if err != nil {
		fmt.Fprintf(st.Stderr, "crank capacity: %v\n", err)
		return ExitBadInput
	}
	return capacitycmd.Run(ctx, command(st, cf.run), cf.fl)
}
