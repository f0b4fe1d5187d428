package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/crankshaft/crankshaft/internal/bisect"
	"github.com/crankshaft/crankshaft/internal/threshold"
)

const bisectUsage = `usage: crank bisect --config FILE --scenario NAME --good REV --bad REV [--metric load:http/rps/mean] [options]

Finds the first commit between --good and --bad of the application's git repository that made the
metric worse: benchmarks both ends in rounds (the bad one must be worse by crank compare's test: a
change past --precision, significant at 5 %), then halves the range as git bisect does, each commit
run in rounds beside both ends until it is significantly nearer one of them (99 %, from the 5th
round) or every mean is within --precision. A commit that fails to build or run is skipped. The
application's source is a local git folder (source.localFolder inside a work tree: each commit is
exported from it) or a repository (source.repository: the agent clones each commit).

  --good REV, --bad REV   the revisions; good must be an ancestor of bad
  --metric [SVC:]NAME     the figure (default load:http/rps/mean), its direction from the catalog
  --service NAME          the service whose source is bisected (default: the first that has one)
  --precision P           as --iterations auto's (default 2%), and the smallest change that counts
  --max-iterations N      per commit (default 20)
  --json FILE             the path, under "bisect" at the root (crank report FILE draws it)
  --side-by-side          run the commits of a round at the same time, each on serverPort plus 0, 1
                          or 2 with its own load, so that the machine's drift falls on them alike;
                          judge a cost then (application:benchmarks/cpu/per-request, a latency at
                          a fixed --load.variables.rate), not requests/s: they share the machine
  and every run option of crank (--config, --scenario, --profile, --variable...).
Exit: 0 with a first bad commit or "no commit is worse", 1 when it cannot tell, 2 for bad input.
`

type bisectFlags struct {
	fl  bisect.Flags
	run *runFlags
}

func parseBisectFlags(args []string, getenv func(string) string) (*bisectFlags, error) {
	bf := &bisectFlags{fl: bisect.Flags{Metric: threshold.Threshold{Service: "load", Metric: "http/rps/mean"}}}
	rest, err := splitFlags(args, []string{"good", "bad", "metric", "service"}, []string{"side-by-side"}, bf.set)
	if err != nil {
		return nil, err
	}
	if bf.fl.Good == "" || bf.fl.Bad == "" {
		return nil, usagef("crank bisect needs --good REV and --bad REV")
	}
	rf, err := parseRunFlags(append(rest, "--iterations", "auto"), getenv)
	if err != nil {
		return nil, err
	}
	bf.run = rf
	return bf, nil
}

func (bf *bisectFlags) set(name, value string, hasValue bool) error {
	switch name {
	case "side-by-side":
		if hasValue {
			return usagef("--side-by-side takes no value, got %q", value)
		}
		bf.fl.SideBySide = true
	case "good":
		bf.fl.Good = value
	case "bad":
		bf.fl.Bad = value
	case "service":
		bf.fl.Service = value
	case "metric":
		svc, m, ok := strings.Cut(value, ":")
		if !ok {
			svc, m = "", value
		}
		bf.fl.Metric = threshold.Threshold{Service: svc, Metric: m, Source: "--metric"}
	}
	return nil
}

// runBisect is `crank bisect`: its flags read, internal/bisect does the rest.
func runBisect(ctx context.Context, st State, args []string) int {
	if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
		fmt.Fprint(st.Stdout, bisectUsage)
		return ExitOK
	}
	bf, err := parseBisectFlags(args, st.Getenv)
	if err != nil {
		fmt.Fprintf(st.Stderr, "crank bisect: %v\n", err)
		return ExitBadInput
	}
	bf.run.display.ownSteps = true
	return bisect.Main(ctx, command(st, bf.run), bf.fl)
}
