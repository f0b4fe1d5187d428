package cli

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/crankshaft/crankshaft/internal/duet"
	"github.com/crankshaft/crankshaft/internal/gate"
	"github.com/crankshaft/crankshaft/internal/threshold"
)

const compareRefsUsage = `usage: crank compare --base REF --head REF --config FILE --scenario NAME [--metric SVC:NAME] [options]

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

// runCompare is crank compare: of two refs measured here (--base, --head: internal/duet), or of
// result files (internal/gate).
func runCompare(ctx context.Context, st State, args []string) int {
	if !refsGiven(args) {
		return gate.Compare(ctx, args, st.Stdout, st.Stderr)
	}
	for _, a := range args {
		if a == "-h" || a == "--help" {
			fmt.Fprint(st.Stdout, compareRefsUsage)
			return ExitOK
		}
	}
	fl, rest, err := parseCompareRefs(args)
	var rf *runFlags
	if err == nil {
		rf, err = parseRunFlags(rest, st.Getenv)
	}
	if err != nil {
		fmt.Fprintf(st.Stderr, "crank compare: %v\n", err)
		return ExitBadInput
	}
	return duet.Main(ctx, command(st, rf), fl)
}

// refsGiven says whether the arguments name --base or --head (crank compare of refs).
func refsGiven(args []string) bool {
	for _, a := range args {
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if strings.HasPrefix(a, "-") && (name == "base" || name == "head") {
			return true
		}
	}
	return false
}

// parseCompareRefs reads crank compare --base --head's own flags; the rest are run options.
func parseCompareRefs(args []string) (duet.Flags, []string, error) {
	fl := duet.Flags{Threshold: gate.DefaultThreshold, Alpha: gate.DefaultAlpha, MaxRounds: duet.DefaultMaxRounds, Limit: duet.DefaultLimit}
	rest, err := splitFlags(args, []string{"base", "head", "metric", "service", "threshold", "alpha", "max-rounds", "limit"},
		[]string{"interleaved"}, func(name, value string, hasValue bool) error { return setCompareRef(&fl, name, value, hasValue) })
	if err != nil {
		return fl, nil, err
	}
	if fl.Base == "" || fl.Head == "" {
		return fl, nil, usagef("crank compare of refs needs --base REF and --head REF (crank compare --base REF --help)")
	}
	return fl, rest, nil
}

func setCompareRef(fl *duet.Flags, name, value string, hasValue bool) error {
	var err error
	switch name {
	case "interleaved":
		if hasValue {
			return usagef("--interleaved takes no value, got %q", value)
		}
		fl.Interleaved = true
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
			return usagef("--threshold %v", err)
		}
	case "alpha":
		if fl.Alpha, err = strconv.ParseFloat(value, 64); err != nil {
			return usagef("--alpha %q: want a level such as 0.05", value)
		}
	case "max-rounds":
		if fl.MaxRounds, err = strconv.Atoi(value); err != nil {
			return usagef("--max-rounds %q: want a number of rounds", value)
		}
	case "limit":
		if fl.Limit, err = time.ParseDuration(value); err != nil {
			return usagef("--limit %q: want a duration such as 10m", value)
		}
	}
	return nil
}
