package gate

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/crankshaft/crankshaft/internal/stats"
)

// Finding is one change point in a history, as `crank regressions` reports it. Index is the
// position in the series of the first run after the change; Time and File are that run's.
type Finding struct {
	Scenario   string    `json:"scenario,omitempty"`
	Profiles   string    `json:"profiles,omitempty"`
	Service    string    `json:"service"`
	Metric     string    `json:"metric"`
	Index      int       `json:"index"`
	Time       time.Time `json:"time"`
	File       string    `json:"file"`
	Before     float64   `json:"before"`
	After      float64   `json:"after"`
	Change     float64   `json:"change"` // after/before - 1
	PValue     float64   `json:"pValue"`
	Direction  string    `json:"direction"`
	Regression bool      `json:"regression"` // the change goes the bad way
}

// History is the outcome of a regressions run.
type History struct {
	Dir      string
	Files    int
	Series   int
	Options  stats.Options
	Findings []Finding
}

// DetectRegressions reads the result files under dir and finds change points in each series of
// the wanted metrics (the default ones when empty).
func DetectRegressions(ctx context.Context, dir string, wanted []string, opts stats.Options) (History, error) {
	entries, err := loadHistory(ctx, dir)
	if err != nil {
		return History{}, err
	}
	all := buildSeries(entries, wanted)
	for _, m := range wanted {
		if !hasSeries(all, m) {
			return History{}, fmt.Errorf("unknown metric %q: no result under %s reports it", m, dir)
		}
	}
	h := History{Dir: dir, Files: len(entries), Series: len(all), Options: opts, Findings: []Finding{}}
	for _, s := range all {
		if err := ctx.Err(); err != nil {
			return History{}, err
		}
		o := opts
		o.Seed ^= s.key.seed()
		for _, cp := range stats.DetectChangePoints(s.values, o) {
			h.Findings = append(h.Findings, finding(s, cp))
		}
	}
	return h, nil
}

func hasSeries(all []*series, metric string) bool {
	for _, s := range all {
		if s.key.metric == metric {
			return true
		}
	}
	return false
}

func finding(s *series, cp stats.ChangePoint) Finding {
	bad := s.dir == LowerIsBetter && cp.Change > 0 || s.dir == HigherIsBetter && cp.Change < 0
	return Finding{
		Scenario: s.key.scenario, Profiles: s.key.profiles, Service: s.key.service, Metric: s.key.metric,
		Index: cp.Index, Time: s.times[cp.Index], File: s.files[cp.Index],
		Before: cp.Before, After: cp.After, Change: cp.Change, PValue: cp.PValue,
		Direction: s.dir.String(), Regression: bad,
	}
}

// Regressed tells whether a change point goes the bad way.
func (h History) Regressed() bool {
	for _, f := range h.Findings {
		if f.Regression {
			return true
		}
	}
	return false
}

const regressionsUsage = `usage: crank regressions --history DIR [flags]

Finds change points (E-divisive means with a permutation test, as Apache Otava does) in each
metric of each service over the result files under DIR, ordered by their startTime.
Exit status: 0 done (1 with --fail-on-regression when a change goes the bad way), 2 bad input.

Flags:
`

// Regressions implements `crank regressions --history DIR [--format text|markdown|json]
// [--p-value 0.001] [--magnitude 0.02] [--window N] [--metric NAME]... [--fail-on-regression]`.
func Regressions(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("regressions", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, regressionsUsage)
		fs.PrintDefaults()
	}
	var metrics stringList
	var magnitude fraction
	dir := fs.String("history", "", "folder of result JSON files (searched recursively)")
	format := fs.String("format", "text", "output format: text, markdown or json")
	pvalue := fs.Float64("p-value", stats.DefaultPValue, "significance level a change point must reach")
	fs.Var(&magnitude, "magnitude", "smallest relative change between the means before and after, as 2% or 0.02 (default 0)")
	window := fs.Int("window", stats.DefaultWindow, "sliding window length, in runs")
	fs.Var(&metrics, "metric", "metric to analyse (repeatable); default: RPS, http/latency/99, benchmarks/cpu")
	failOn := fs.Bool("fail-on-regression", false, "exit 1 when a change point goes the bad way")
	pos, err := parseInterleaved(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return ExitOK
	}
	if err != nil {
		return ExitBadInput
	}
	if msg := checkRegressionArgs(pos, *dir, *format, *pvalue, *window); msg != "" {
		fmt.Fprintf(stderr, "crank regressions: %s\n", msg)
		return ExitBadInput
	}
	opts := stats.Options{PValue: *pvalue, Magnitude: float64(magnitude), Window: *window, Seed: DefaultSeed}
	h, err := DetectRegressions(ctx, *dir, metrics, opts)
	if err != nil {
		fmt.Fprintf(stderr, "crank regressions: %v\n", err)
		return ExitBadInput
	}
	if err := h.write(stdout, *format); err != nil {
		fmt.Fprintf(stderr, "crank regressions: writing the report: %v\n", err)
		return ExitBadInput
	}
	if *failOn && h.Regressed() {
		return ExitRegressed
	}
	return ExitOK
}

func checkRegressionArgs(pos []string, dir, format string, pvalue float64, window int) string {
	switch {
	case len(pos) > 0:
		return fmt.Sprintf("unexpected argument %q (the folder goes after --history)", pos[0])
	case dir == "":
		return "--history DIR is required"
	case !strings.Contains("|text|markdown|json|", "|"+format+"|"):
		return fmt.Sprintf("--format %q: want text, markdown or json", format)
	case pvalue <= 0 || pvalue >= 1:
		return fmt.Sprintf("--p-value %g: want a level in (0, 1)", pvalue)
	case window < 4:
		return fmt.Sprintf("--window %d: want at least 4 runs", window)
	}
	return ""
}
