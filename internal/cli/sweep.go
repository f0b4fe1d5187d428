package cli

import (
	"context"
	"fmt"

	"github.com/crankshaft/crankshaft/internal/sweep"
)

// Sweep defaults.
const (
	DefaultSweepIterations = sweep.DefaultIterations
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
	rest, err := splitFlags(args, []string{"matrix", "baseline"}, []string{"resume"}, func(name, value string, _ bool) error {
		switch name {
		case "resume":
			sf.resume = true
		case "baseline":
			sf.baseline = value
		default:
			a, err := sweep.ParseAxis(value)
			if err != nil {
				return usagef("%v", err)
			}
			sf.axes = append(sf.axes, a)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	f, err := parseRunFlags(rest, getenv)
	if err != nil {
		return nil, err
	}
	if len(f.compare) > 0 {
		return nil, usagef("crank sweep: --compare is not supported: the sweep compares its variants with --baseline")
	}
	if !f.spread.iterationSet { // crank's -i and --Iterations too
		f.iterations = 0 // the scenario's sweep section, else DefaultSweepIterations
	}
	if f.jsonOut == "" {
		f.jsonOut = DefaultSweepFile
	}
	sf.run = f
	return sf, nil
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
	return sweep.Main(ctx, command(st, sf.run), sweep.Flags{Axes: sf.axes, Baseline: sf.baseline, Resume: sf.resume})
}
