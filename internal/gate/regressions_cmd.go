package gate

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/crankshaft/crankshaft/internal/flags"
	"github.com/crankshaft/crankshaft/internal/influx"
	"github.com/crankshaft/crankshaft/internal/stats"
)

// ExitNotWritten is the exit status of `crank regressions` when its change points could be
// neither written to InfluxDB nor spooled (the report was printed).
const ExitNotWritten = 3

const regressionsUsage = `usage: crank regressions (--history DIR | --influx-url URL) [flags]

Finds change points (E-divisive means with a permutation test, as Apache Otava does) in each
metric of each service over a history of runs: the result files under DIR ordered by their
startTime, or else the crank_summary points of InfluxDB. With InfluxDB configured, each change
point is written to crank_changepoint (spooled when InfluxDB cannot take it).
Exit status: 0 done (1 with --fail-on-regression when a change goes the bad way), 2 bad input,
3 change points neither written nor spooled.

Flags:
`

// regressionsFlags are the command line of `crank regressions`.
type regressionsFlags struct {
	dir, format       string
	pvalue            float64
	magnitude         fraction
	window            int
	metrics           []string
	failOn, write     bool
	scenario, profile string
	since             age
	influx            influx.Config
	token             string // --influx-token; its default stays out of the usage text
}

func (f *regressionsFlags) define(fs *flags.Set) {
	fs.String(&f.dir, "folder of result JSON files (searched recursively); without it, the history is read from InfluxDB", "history")
	fs.String(&f.format, "output format: text, markdown or json", "format")
	fs.Float(&f.pvalue, "significance level a change point must reach", "p-value")
	fs.Var(&f.magnitude, "smallest relative change between the means before and after, as 2% or 0.02 (default 0)", "magnitude")
	fs.Int(&f.window, "sliding window length, in runs", "window")
	fs.Strings(&f.metrics, "metric to analyse (repeatable); default: crank compare's (RPS, error rate, http/latency/99, CPU, CPU per request, the bench's ratio and CPU per request)", "metric")
	fs.Bool(&f.failOn, "exit 1 when a change point goes the bad way", "fail-on-regression")
	fs.String(&f.scenario, "only the runs of this scenario", "scenario")
	fs.String(&f.profile, `only the runs of these profiles, joined with "+" ("local+arm")`, "profile")
	fs.Var(&f.since, "only the runs of the last 90d, 2w, 36h...", "since")
	fs.Bool(&f.write, "with InfluxDB configured, write the change points to crank_changepoint", "write-changepoints")
	f.influx.Flags(fs, &f.token, "where change points wait when InfluxDB cannot take them")
}

// Regressions implements `crank regressions` without reading the environment: InfluxDB is used
// only when named by flags. The CLI calls RegressionsEnv.
func Regressions(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return RegressionsEnv(ctx, args, func(string) string { return "" }, stdout, stderr)
}

// RegressionsEnv implements `crank regressions (--history DIR | --influx-url URL) [--influx-token T]
// [--influx-org O] [--influx-bucket DB/RP] [--spool DIR] [--scenario S] [--profile P] [--since 90d]
// [--format text|markdown|json] [--p-value 0.001] [--magnitude 0.02] [--window N] [--metric NAME]...
// [--fail-on-regression] [--write-changepoints=false]`. The InfluxDB flags default to getenv's
// CRANK_INFLUX_URL, CRANK_INFLUX_TOKEN, CRANK_INFLUX_ORG, CRANK_INFLUX_BUCKET, CRANK_INFLUX_TIMEOUT
// and CRANK_SPOOL_DIR (influx.ConfigFromEnv).
func RegressionsEnv(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	f := regressionsFlags{influx: influx.ConfigFromEnv(getenv), format: "text", pvalue: stats.DefaultPValue,
		window: stats.DefaultWindow, write: true}
	fs := &flags.Set{}
	f.define(fs)
	pos, err := fs.Parse(args)
	if err != nil {
		return flags.Fail(err, "crank regressions", stdout, stderr, func(w io.Writer) {
			fmt.Fprint(w, regressionsUsage)
			fs.Usage(w)
		})
	}
	f.influx.Token = cmp.Or(f.token, f.influx.Token)
	if msg := f.check(pos); msg != "" {
		fmt.Fprintf(stderr, "crank regressions: %s\n", msg)
		return ExitBadInput
	}
	h, err := f.detect(ctx)
	if err != nil {
		fmt.Fprintf(stderr, "crank regressions: %v\n", err)
		return ExitBadInput
	}
	if h.Truncated {
		fmt.Fprintf(stderr, "crank regressions: more than %d points in InfluxDB: only the most recent were analysed (narrow with --since, --scenario or --profile)\n",
			influx.DefaultMaxRows)
	}
	if err := h.write(stdout, f.format); err != nil {
		fmt.Fprintf(stderr, "crank regressions: writing the report: %v\n", err)
		return ExitBadInput
	}
	written := true
	if f.influx.Enabled() && f.write {
		written = writeChangePoints(ctx, f.influx, h, stderr)
	}
	switch {
	case f.failOn && h.Regressed():
		return ExitRegressed
	case !written:
		return ExitNotWritten
	}
	return ExitOK
}

func (f *regressionsFlags) detect(ctx context.Context) (History, error) {
	sel := Selection{Metrics: f.metrics, Scenario: f.scenario, Profile: f.profile}
	if f.since > 0 {
		sel.Since = time.Now().Add(-time.Duration(f.since))
	}
	opts := stats.Options{PValue: f.pvalue, Magnitude: float64(f.magnitude), Window: f.window, Seed: DefaultSeed}
	if f.dir != "" {
		return DetectDir(ctx, f.dir, sel, opts)
	}
	return DetectInflux(ctx, f.influx, sel, opts)
}

func (f *regressionsFlags) check(pos []string) string {
	switch {
	case len(pos) > 0:
		return fmt.Sprintf("unexpected argument %q (the folder goes after --history)", pos[0])
	case f.dir == "" && !f.influx.Enabled():
		return "--history DIR is required, or an InfluxDB to read the history from (--influx-url URL or CRANK_INFLUX_URL)"
	case !strings.Contains("|text|markdown|json|", "|"+f.format+"|"):
		return fmt.Sprintf("--format %q: want text, markdown or json", f.format)
	case f.pvalue <= 0 || f.pvalue >= 1:
		return fmt.Sprintf("--p-value %g: want a level in (0, 1)", f.pvalue)
	case f.window < 4:
		return fmt.Sprintf("--window %d: want at least 4 runs", f.window)
	}
	return ""
}

// age is a positive duration that also takes days and weeks: 90d, 2w, 36h, 1h30m.
type age time.Duration

func (a *age) String() string {
	if *a == 0 {
		return ""
	}
	return time.Duration(*a).String()
}

func (a *age) Set(v string) error {
	s := strings.TrimSpace(v)
	var d time.Duration
	var err error
	if n, unit := strings.TrimRight(s, "dw"), strings.TrimLeft(s, "0123456789"); (unit == "d" || unit == "w") && n != "" {
		var k int
		k, err = strconv.Atoi(n)
		if k > 100_000 {
			k = -1 // over 270 years: would overflow
		}
		d = time.Duration(k) * 24 * time.Hour
		if unit == "w" {
			d *= 7
		}
	} else {
		d, err = time.ParseDuration(s)
	}
	if err != nil || d <= 0 {
		return fmt.Errorf("%q: want a positive age such as 90d, 2w or 36h", v)
	}
	*a = age(d)
	return nil
}
