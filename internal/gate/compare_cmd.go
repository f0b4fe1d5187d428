package gate

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/crankshaft/crankshaft/internal/flags"
	"github.com/crankshaft/crankshaft/internal/results"
)

// Exit codes of the gate commands. ExitInconclusive is crank compare's alone (crank regressions'
// 3 is ExitNotWritten).
const (
	ExitOK           = 0
	ExitRegressed    = 1
	ExitBadInput     = 2
	ExitInconclusive = 3
)

const compareUsage = `usage: crank compare BASE.json HEAD.json [MORE.json...] [flags]

Compares each result with BASE by Welch's t-test on the logs of the iterations and its
(1 - alpha) interval of the ratio HEAD/BASE. A metric regressed (improved) when the interval
excludes 1 and the change passes --threshold the bad (good) way; it is unchanged when the
interval lies within --threshold both ways; else, or with fewer than 3 iterations on a side, it
is inconclusive, and the report says how many iterations per side would likely tell.
Exit status: 0 nothing regressed or inconclusive, 1 a regression (whatever else),
3 inconclusive (no regression), 2 bad input.

Flags:
`

// Compare implements `crank compare BASE.json HEAD.json [MORE.json...] [--metric NAME]...
// [--threshold 5%] [--markdown FILE] [--alpha 0.05]` and returns its exit code.
func Compare(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var metrics []string
	threshold := fraction(DefaultThreshold)
	var markdown string
	alpha := DefaultAlpha
	fs := &flags.Set{}
	fs.Strings(&metrics, "metric to compare (repeatable); default: RPS (http/rps/mean once), "+strings.Join(defaultOrder, ", "), "metric")
	fs.Var(&threshold, "smallest relative change that counts, as 5% or 0.05", "threshold")
	fs.String(&markdown, "also write the comparison as a markdown table to this file", "markdown")
	fs.Float(&alpha, "significance level of the tests (the intervals are at 1 - alpha)", "alpha")
	help := func(w io.Writer) {
		fmt.Fprint(w, compareUsage)
		fs.Usage(w)
	}
	files, err := fs.Parse(args)
	if err != nil {
		return flags.Fail(err, "crank compare", stdout, stderr, help)
	}
	if len(files) < 2 {
		fmt.Fprintf(stderr, "crank compare: need a base and at least one result to compare, got %d file(s)\n", len(files))
		help(stderr)
		return ExitBadInput
	}
	if alpha <= 0 || alpha >= 1 {
		fmt.Fprintf(stderr, "crank compare: --alpha %g: want a level in (0, 1)\n", alpha)
		return ExitBadInput
	}
	rs, err := readResults(ctx, files)
	if err != nil {
		fmt.Fprintf(stderr, "crank compare: %v\n", err)
		return ExitBadInput
	}
	opts := CompareOptions{Metrics: metrics, Threshold: float64(threshold), Alpha: alpha, MarkdownFile: markdown}.withDefaults()
	if threshold == 0 {
		opts.Threshold = 0 // an explicit 0%: any significant change counts, and unchanged needs no spread
	}
	rep, err := compareFiles(rs, files, opts, stdout)
	if err != nil {
		fmt.Fprintf(stderr, "crank compare: %v\n", err)
		return ExitBadInput
	}
	writeProfileDiffs(stdout, rs, files)
	return rep.ExitCode()
}

// readResults reads every file, naming the file in any error.
func readResults(ctx context.Context, files []string) ([]*results.Result, error) {
	rs := make([]*results.Result, len(files))
	for i, f := range files {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		r, err := results.ReadFile(f)
		if err != nil {
			if !strings.Contains(err.Error(), f) {
				err = fmt.Errorf("%s: %w", f, err)
			}
			return nil, err
		}
		rs[i] = r
	}
	return rs, nil
}
