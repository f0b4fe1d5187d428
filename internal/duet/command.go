package duet

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/crankshaft/crankshaft/internal/bisect"
	"github.com/crankshaft/crankshaft/internal/gate"
	"github.com/crankshaft/crankshaft/internal/measure"
	"github.com/crankshaft/crankshaft/internal/runner"
	"github.com/crankshaft/crankshaft/internal/threshold"
)

// How the sides of a round ran.
const (
	SideBySide  = "side-by-side"
	Interleaved = "interleaved"
)

// Flags are crank compare --base --head's own flags, as the command line read them.
type Flags struct {
	Base, Head, Service string
	// Metric is the figure judged ([SVC:]NAME, as crank bisect's); no Metric: the CPU per request
	// of the compared service, a name with no service: the compared service's.
	Metric           threshold.Threshold
	Threshold, Alpha float64
	MaxRounds        int
	Limit            time.Duration
	// Interleaved runs the sides one after the other in each round even where the scenario could
	// run them side by side.
	Interleaved bool
}

// Main is crank compare --base REF --head REF once its flags are read: everything checked before
// anything starts (a bad flag, an unknown ref or metric, a dirty work tree: exit 2), both refs
// exported and prepared, then rounds until the plan's looks decide; the verdict's exit status is
// crank compare's (0 unchanged or improved, 1 regressed, 3 inconclusive); a side that does not
// build or run, or whose round is no measurement of its work (its judgement error-bound or
// unserved: bisect.ErrUnjudged), is 1 too, said.
func Main(ctx context.Context, c *runner.Command, fl Flags) int {
	d, err := start(ctx, c, fl)
	if err != nil {
		fmt.Fprintf(c.Stderr, "crank compare: %v\n", err)
		return runner.ExitBadInput
	}
	ctl, err := c.Controller()
	if err != nil {
		fmt.Fprintf(c.Stderr, "crank compare: %v\n", err)
		return runner.ExitBadInput
	}
	defer ctl.Close(context.WithoutCancel(ctx))
	d.bench.Use(ctl)
	d.announce()
	return d.run(ctx)
}

// duel is a gate under way: its bench, refs, plan and how the sides run.
type duel struct {
	c          *runner.Command
	bench      *bisect.Bench
	plan       Plan
	metric     threshold.Threshold
	dir        gate.Direction
	base, head bisect.Commit
	how, why   string
}

// start checks everything a gate needs before it measures anything.
func start(ctx context.Context, c *runner.Command, fl Flags) (*duel, error) {
	plan := DefaultPlan(fl.Threshold, fl.Alpha)
	plan.MaxRounds, plan.Limit = fl.MaxRounds, fl.Limit
	if err := plan.Check(); err != nil {
		return nil, err
	}
	metric := fl.Metric
	if metric.Metric == "" {
		metric = threshold.Threshold{Metric: measure.CPUPerRequest, Source: "--metric"}
	}
	bench, resolved, err := bisect.NewBench(ctx, c, "compare", fl.Service, metric)
	if err != nil {
		return nil, err
	}
	dir := gate.DirectionOf(metric.Metric, nil)
	if dir == gate.DirectionUnknown {
		return nil, fmt.Errorf("--metric %s: the catalog does not say whether lower or higher is better, so no change of it is a regression", metric.Metric)
	}
	bench.OfSource()
	if metric.Service == "" {
		metric.Service = bench.Service()
	}
	d := &duel{c: c, bench: bench, plan: plan, metric: metric, dir: dir, how: SideBySide}
	if d.base, d.head, err = refs(ctx, bench, fl); err != nil {
		return nil, err
	}
	if fl.Interleaved { // the bench stays interleaved: SideBySide is not asked
		d.how, d.why = Interleaved, "asked (--interleaved)"
	} else if err := bench.SideBySide(resolved, 2); err != nil {
		d.how, d.why = Interleaved, "the scenario cannot run twice at once: "+strings.TrimPrefix(err.Error(), "--side-by-side: ")
	}
	return d, nil
}

// refs resolves --base and --head in the source's repository, whose work tree must be clean:
// each side is its commit exported (git archive), so an uncommitted change would be measured by
// neither, though the user may think it is.
func refs(ctx context.Context, bench *bisect.Bench, fl Flags) (bisect.Commit, bisect.Commit, error) {
	repo := bench.Repo()
	if !bench.Remote() {
		dirty, err := repo.Dirty(ctx)
		if err != nil {
			return bisect.Commit{}, bisect.Commit{}, err
		}
		if dirty {
			return bisect.Commit{}, bisect.Commit{}, fmt.Errorf("--base/--head: the work tree %s has uncommitted changes, which neither side would measure (each is its commit exported); commit or stash them", repo.Dir)
		}
	}
	base, berr := repo.Resolve(ctx, fl.Base)
	if berr != nil {
		berr = fmt.Errorf("--base %s: %w", fl.Base, berr)
	}
	head, herr := repo.Resolve(ctx, fl.Head)
	if herr != nil {
		herr = fmt.Errorf("--head %s: %w", fl.Head, herr)
	}
	return base, head, errors.Join(berr, herr)
}

// announce says what the gate will do, and how the sides run.
func (d *duel) announce() {
	w := d.c.Stderr
	fmt.Fprintf(w, "compare: %s of %s (base) against %s (head): up to %d rounds within %s, looks after %s rounds\n",
		d.metricName(), d.base.Short(), d.head.Short(), d.plan.MaxRounds, d.plan.Limit, joinInts(d.plan.Schedule()))
	fmt.Fprintf(w, "compare: %s\n", d.howText())
	for _, l := range d.bench.OpenLoads() {
		fmt.Fprintf(w, "compare: side by side: load %q has no fixed rate (rate 0): the sides' loads compete for the machine, and what one gets the other does not; set --%s.variables.rate\n", l, l)
	}
}

// howText says how the sides of a round run, and why when not side by side.
func (d *duel) howText() string {
	if d.how == SideBySide {
		first, last := d.bench.Ports()
		return fmt.Sprintf("side by side: both sides of a round at once, %s on ports %d-%d (taking them in turn), each with its own load", d.bench.Service(), first, last)
	}
	return "interleaved: the sides of a round one after the other (A B, then B A), because " + d.why
}

// metricName is the figure as crank bisect names it: "application:benchmarks/cpu/per-request".
func (d *duel) metricName() string { return d.metric.Service + ":" + d.metric.Metric }

// run prepares both sides, runs the rounds and says the answer.
func (d *duel) run(ctx context.Context) int {
	baseRun, err := d.bench.Prepare(ctx, d.base)
	if err != nil {
		fmt.Fprintf(d.c.Stderr, "crank compare: the base %s: %v\n", d.base.Short(), err)
		return runner.ExitFailed
	}
	defer baseRun.Release()
	headRun, err := d.bench.Prepare(ctx, d.head)
	if err != nil {
		fmt.Fprintf(d.c.Stderr, "crank compare: the head %s: %v\n", d.head.Short(), err)
		return runner.ExitFailed
	}
	defer headRun.Release()
	fig := bisect.FigureOf(d.metricName())
	seq := Sequence{Plan: d.plan, Direction: d.dir, Round: d.round(baseRun, headRun),
		Measured: func(r int, b, h float64) {
			fmt.Fprintf(d.c.Stderr, "compare: round %d: base %s, head %s (%+.1f %%)\n", r+1, fig.Value(b), fig.Value(h), 100*(h/b-1))
		},
		Dropped: func(r int, why string) {
			fmt.Fprintf(d.c.Stderr, "compare: round %d not counted: the hypervisor still took the machine's CPU when it was run again: %s; measuring it again\n", r+1, why)
		},
		Looked: func(k int, l Look) {
			fmt.Fprintf(d.c.Stderr, "compare: look %d after %d rounds: %s\n", k, l.Rounds, lookText(l))
		}}
	out, err := seq.Run(ctx)
	if ctx.Err() != nil {
		fmt.Fprintf(d.c.Stderr, "crank compare: interrupted after %d rounds\n", len(out.Base))
		return runner.ExitInterrupted
	}
	if err != nil {
		fmt.Fprintf(d.c.Stderr, "crank compare: %v\n", err)
		return runner.ExitFailed
	}
	s := d.summary(out, baseRun, headRun)
	text := d.c.Stdout
	if d.c.JSON == "-" { // the JSON has stdout
		text = d.c.Stderr
	}
	WriteText(text, s)
	if d.c.JSON != "" && !d.writeJSON(s) {
		return runner.ExitFailed
	}
	return s.ExitCode()
}

// round is the gate's RoundFunc: one round of both sides on the bench, each one's figure.
func (d *duel) round(baseRun, headRun *bisect.CommitRun) RoundFunc {
	return func(ctx context.Context, r int) (float64, float64, error) {
		if failed, err := d.bench.Round(ctx, r, baseRun, headRun); err != nil {
			side := map[bool]string{true: "base", false: "head"}[failed == baseRun]
			return 0, 0, fmt.Errorf("the %s %s: %w", side, failed.Commit().Short(), err)
		}
		if why := cmp.Or(baseRun.Stolen(), headRun.Stolen()); why != "" {
			return 0, 0, &Disturbed{Why: why}
		}
		// The bench keeps every round it measured, the ones not counted too (Disturbed).
		b, h := d.bench.Values(baseRun), d.bench.Values(headRun)
		if len(b) == 0 || len(b) != len(h) {
			return 0, 0, fmt.Errorf("%s: the round gave no figure for a side (base %d, head %d figures)", d.metricName(), len(b), len(h))
		}
		return b[len(b)-1], h[len(h)-1], nil
	}
}

func joinInts(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, ", ")
}
