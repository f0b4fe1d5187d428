package duet

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/crankshaft/crankshaft/internal/flags"
	"github.com/crankshaft/crankshaft/internal/gate"
	"github.com/crankshaft/crankshaft/internal/runner"
	"github.com/crankshaft/crankshaft/internal/threshold"
)

// Usage is crank compare --base --head's help.
const Usage = `usage: crank compare --base REF --head REF --config FILE --scenario NAME [--metric SVC:NAME] [options]

Measures two commits of the application's git repository (the service whose source.localFolder is
in a work tree, which must be clean) in paired rounds and judges head against base: side by side,
both at once in each round on serverPort and serverPort+1 with a load each, when the scenario can
run twice at once; interleaved (A B, then B A) otherwise, saying why. Each round's positions' own
costs are taken out, then crank compare's paired test and verdict rules (--threshold, --alpha)
judge the rounds at a few looks (after 6 rounds, at --max-rounds and evenly between, alpha split
between them), stopping at the first that decides, or before a round would pass --limit.

  --base REF, --head REF  the commits
  --metric [SVC:]NAME     the figure (default: the service's benchmarks/cpu/per-request)
  --service NAME          the service whose source is compared (default: the first with one)
  --threshold P           the smallest change that counts (default 5%), as crank compare's
  --alpha A               the gate's significance level over all its looks (default 0.05)
  --max-rounds N          at most N rounds (default 40)
  --limit D               the time budget (default 10m)
  --interleaved           one side after the other in each round even where side by side works
  --json FILE             the answer under "compare" at the root
  and every run option of crank (--config, --scenario, --profile, --variable...).
Exit: 0 unchanged or improved, 1 regressed (or a side failed to build or run), 3 inconclusive,
2 bad input. Without --base and --head: crank compare BASE.json HEAD.json (crank compare --help).
`

// Compare is crank compare: with --base or --head, of two refs measured here (Main, the run
// options read by command from the arguments that are not this command's own); otherwise of
// result files (gate.Compare), as before.
func Compare(ctx context.Context, args []string, stdout, stderr io.Writer, command func(rest []string) (*runner.Command, error)) int {
	if !RefsGiven(args) {
		return gate.Compare(ctx, args, stdout, stderr)
	}
	if slices.Contains(args, "-h") || slices.Contains(args, "--help") {
		fmt.Fprint(stdout, Usage)
		return runner.ExitOK
	}
	fl, rest, err := ParseFlags(args)
	var c *runner.Command
	if err == nil {
		c, err = command(rest)
	}
	if err != nil {
		fmt.Fprintf(stderr, "crank compare: %v\n", err)
		return runner.ExitBadInput
	}
	return Main(ctx, c, fl)
}

// RefsGiven says whether the arguments name --base or --head (crank compare of refs).
func RefsGiven(args []string) bool {
	for _, a := range args {
		if name, _, _, isFlag := flags.Cut(a); isFlag && (flags.Fold(name) == "base" || flags.Fold(name) == "head") {
			return true
		}
	}
	return false
}

// ParseFlags reads crank compare --base --head's own flags, in crank's one flag style (flags.Split),
// and returns the other arguments, the run options, in order.
func ParseFlags(args []string) (Flags, []string, error) {
	fl := Flags{Threshold: gate.DefaultThreshold, Alpha: gate.DefaultAlpha, MaxRounds: DefaultMaxRounds, Limit: DefaultLimit}
	// this command's flags that take a value; the other arguments are run options
	valued := []string{"base", "head", "metric", "service", "threshold", "alpha", "max-rounds", "limit"}
	rest, err := flags.Split(args, valued, []string{"interleaved"}, flags.Fold, func(name, value string, hasValue bool) error {
		if name == "interleaved" {
			if hasValue {
				return fmt.Errorf("flag --interleaved takes no value")
			}
			fl.Interleaved = true
			return nil
		}
		return fl.set(name, value)
	})
	if err != nil {
		return fl, nil, err
	}
	if fl.Base == "" || fl.Head == "" {
		return fl, nil, fmt.Errorf("crank compare of refs needs --base REF and --head REF (crank compare --base REF --help)")
	}
	return fl, rest, nil
}

func (fl *Flags) set(name, value string) error {
	var err error
	switch name {
	case "base":
		fl.Base = value
	case "head":
		fl.Head = value
	case "service":
		fl.Service = value
	case "metric":
		svc, m, ok := strings.Cut(value, ":")
		if !ok {
			svc, m = "", value
		}
		fl.Metric = threshold.Threshold{Service: svc, Metric: m, Source: "--metric"}
	case "threshold":
		if fl.Threshold, err = gate.ParseFraction(value); err != nil {
			return fmt.Errorf("--threshold %v", err)
		}
	case "alpha":
		if fl.Alpha, err = strconv.ParseFloat(value, 64); err != nil {
			return fmt.Errorf("--alpha %q: want a level such as 0.05", value)
		}
	case "max-rounds":
		if fl.MaxRounds, err = strconv.Atoi(value); err != nil {
			return fmt.Errorf("--max-rounds %q: want a number of rounds", value)
		}
	case "limit":
		if fl.Limit, err = time.ParseDuration(value); err != nil {
			return fmt.Errorf("--limit %q: want a duration such as 10m", value)
		}
	}
	return nil
}
