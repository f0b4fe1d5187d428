package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/crankshaft/crankshaft/internal/bisect"
	"github.com/crankshaft/crankshaft/internal/config"
	"github.com/crankshaft/crankshaft/internal/controller"
	"github.com/crankshaft/crankshaft/internal/gate"
	"github.com/crankshaft/crankshaft/internal/results"
	"github.com/crankshaft/crankshaft/internal/runner"
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
	good, bad, service string
	sideBySide         bool
	metric             threshold.Threshold // Service and Metric only
	run                *runFlags
}

func parseBisectFlags(args []string, getenv func(string) string) (*bisectFlags, error) {
	bf := &bisectFlags{metric: threshold.Threshold{Service: "load", Metric: "http/rps/mean"}}
	var rest []string
	for i := 0; i < len(args); i++ {
		name, value, hasValue := strings.Cut(strings.TrimLeft(args[i], "-"), "=")
		name = flagName(name)
		switch name {
		case "good", "bad", "metric", "service":
		case "side-by-side":
			if hasValue {
				return nil, usagef("--side-by-side takes no value, got %q", value)
			}
			bf.sideBySide = true
			continue
		default:
			rest = append(rest, args[i])
			continue
		}
		value, err := flagValue(args, &i, name, value, hasValue)
		if err != nil {
			return nil, err
		}
		switch name {
		case "good":
			bf.good = value
		case "bad":
			bf.bad = value
		case "service":
			bf.service = value
		case "metric":
			svc, m, ok := strings.Cut(value, ":")
			if !ok {
				svc, m = "", value
			}
			bf.metric = threshold.Threshold{Service: svc, Metric: m, Source: "--metric"}
		}
	}
	if bf.good == "" || bf.bad == "" {
		return nil, usagef("crank bisect needs --good REV and --bad REV")
	}
	rf, err := parseRunFlags(append(rest, "--iterations", "auto"), getenv)
	if err != nil {
		return nil, err
	}
	bf.run = rf
	return bf, nil
}

// runBisect is `crank bisect`.
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
	resolved, _, err := resolve(ctx, st, bf.run)
	var src sourceOf
	if err == nil {
		src, err = bf.source(ctx, resolved)
	}
	if err == nil {
		err = runner.CheckThresholdMetrics(io.Discard, []threshold.Threshold{bf.metric}, resolved, nil)
	}
	var side *together
	if err == nil && bf.sideBySide {
		var t together
		t, err = sideBySide(resolved, src.service, bf.metric.Metric)
		side = &t
	}
	if err != nil {
		fmt.Fprintf(st.Stderr, "crank bisect: %v\n", err)
		return ExitBadInput
	}
	good, gerr := src.repo.Resolve(ctx, bf.good)
	bad, berr := src.repo.Resolve(ctx, bf.bad)
	var commits []bisect.Commit
	if err = errors.Join(gerr, berr); err == nil {
		commits, err = src.repo.Range(ctx, good, bad)
	}
	if err != nil {
		fmt.Fprintf(st.Stderr, "crank bisect: %v\n", err)
		return ExitBadInput
	}
	ctl, err := newController(st, bf.run, logger(st.Stderr, bf.run.verbose), st.Stderr, nil)
	if err != nil {
		fmt.Fprintf(st.Stderr, "crank bisect: %v\n", err)
		return ExitBadInput
	}
	defer ctl.Close(context.WithoutCancel(ctx))
	b := &bisector{st: st, f: bf, src: src, ctl: ctl, tmp: st.Getenv("TMPDIR"), bad: bad, side: side}
	fmt.Fprintf(st.Stderr, "bisect: %d commits after %s up to %s; about %d steps, each until %s is within %.1f %%\n",
		len(commits), good.Short(), bad.Short(), bisect.Steps(len(commits)), bf.metricName(), 100*bf.run.spread.auto.precision)
	res := bisect.Result{Metric: bf.metricName(), Good: good, Bad: bad, SideBySide: bf.sideBySide}
	if side != nil {
		fmt.Fprintf(st.Stderr, "bisect: side by side: the commits of a round at once, %s on ports %d-%d (the commits taking them in turn), each with its own load\n",
			src.service, side.port, side.port+maxPositions-1)
		for _, l := range side.open {
			fmt.Fprintf(st.Stderr, "bisect: side by side: load %q has no fixed rate (rate 0): the commits' loads compete for the machine, and what one gets the others do not; set --%s.variables.rate\n", l, l)
		}
	}
	// The ends first, interleaved: a range whose bad end is not worse ends here; otherwise each
	// commit is told by which end it is significantly nearer, the three measured in the same
	// rounds, which holds on a noisy, drifting machine where a small excursion from good alone
	// would not.
	goodRun, err := b.prepare(ctx, good)
	if err != nil {
		fmt.Fprintf(st.Stderr, "crank bisect: the good commit %s: %v\n", good.Short(), err)
		return ExitFailed
	}
	defer goodRun.release()
	badRun, err := b.prepare(ctx, bad)
	if err != nil {
		fmt.Fprintf(st.Stderr, "crank bisect: the bad commit %s: %v\n", bad.Short(), err)
		return ExitFailed
	}
	defer badRun.release()
	b.goodRun, b.badRun = goodRun, badRun
	if failed, err := b.rounds(ctx, b.decided(badRun, goodRun, nil), goodRun, badRun); err != nil {
		which := map[bool]string{true: "good", false: "bad"}[failed == goodRun]
		fmt.Fprintf(st.Stderr, "crank bisect: the %s commit %s: %v\n", which, failed.c.Short(), err)
		return ExitFailed
	}
	base, worst := goodRun.acc, badRun.acc
	b.base = base
	ends, _ := b.unbiased(base, worst)
	res.Baseline = b.step(good, ends[0], nil, nil) // as the bad end's row has it
	res.Baseline.Verdict = bisect.Good
	res.Baseline.Rerun = goodRun.rerun
	fig := bisect.FigureOf(res.Metric)
	fmt.Fprintln(st.Stderr, "bisect: "+fig.Row(0, 0, res.Baseline).Line())
	res.BadEnd = b.step(bad, worst, base, nil)
	res.BadEnd.Position = len(commits)
	res.BadEnd.Rerun = badRun.rerun
	fmt.Fprintln(st.Stderr, "bisect: "+fig.Row(-1, 0, res.BadEnd).Line())
	switch res.BadEnd.Verdict {
	case bisect.CannotTell: // imprecise and not significantly worse: not "none is worse" either
		return b.finish(res, fmt.Errorf("%w: the bad end %s is %+.1f %% from good, within the noise after %d iterations; ask a finer --precision or more --max-iterations",
			bisect.ErrCannotTell, bad.Short(), 100*res.BadEnd.Change, res.BadEnd.Iterations))
	case bisect.Good:
		res.NoneWorse = true
		return b.finish(res, nil)
	}
	b.worst = worst
	found, searchErr := bisect.Search(ctx, commits, b.judge)
	found.Metric, found.Good, found.Bad, found.Baseline, found.BadEnd = res.Metric, good, bad, res.Baseline, res.BadEnd
	found.SideBySide = res.SideBySide
	return b.finish(found, searchErr)
}

// metricName is the figure bisected, as given: "load:http/rps/mean".
func (bf *bisectFlags) metricName() string {
	if bf.metric.Service == "" {
		return bf.metric.Metric
	}
	return bf.metric.Service + ":" + bf.metric.Metric
}

// sourceOf is where the bisected service's source comes from: a local git folder (each commit
// exported into a folder of its own) or a repository the agent clones.
type sourceOf struct {
	service string
	repo    bisect.Repo
	local   string // the folder inside repo.Dir the job uploads ("" for a repository)
	remote  bool
}

func (bf *bisectFlags) source(ctx context.Context, r *config.Resolved) (sourceOf, error) {
	for _, s := range r.Services {
		if bf.service != "" && !strings.EqualFold(s.Name, bf.service) || s.Job.Source == nil {
			continue
		}
		src := s.Job.Source
		switch {
		case src.LocalFolder != "":
			top := bisect.Toplevel(ctx, src.LocalFolder)
			if top == "" {
				return sourceOf{}, fmt.Errorf("service %q: source.localFolder %s is not in a git work tree", s.Name, src.LocalFolder)
			}
			rel, err := filepath.Rel(top, src.LocalFolder)
			if err != nil {
				return sourceOf{}, err
			}
			return sourceOf{service: s.Name, repo: bisect.Repo{Dir: top}, local: rel}, nil
		case src.Repository != "":
			if fi, err := os.Stat(src.Repository); err == nil && fi.IsDir() {
				return sourceOf{service: s.Name, repo: bisect.Repo{Dir: src.Repository}, remote: true}, nil
			}
			return sourceOf{}, fmt.Errorf("service %q: source.repository %s: bisect reads the history of a repository on this machine; clone it and give it as source.localFolder", s.Name, src.Repository)
		}
	}
	if bf.service != "" {
		return sourceOf{}, fmt.Errorf("--service %q: no such service with a source", bf.service)
	}
	return sourceOf{}, fmt.Errorf("no service of scenario %q has a source to bisect", r.Scenario)
}

// bisector runs and judges commits.
type bisector struct {
	st    State
	f     *bisectFlags
	src   sourceOf
	ctl   *controller.Controller
	tmp   string
	base  *results.Result // the good end, as the ends' rounds measured it
	worst *results.Result // the bad end, likewise
	bad   bisect.Commit
	// goodRun and badRun are the ends' exported folders, measured again beside each commit.
	goodRun, badRun *commitRun
	// services and metric are the figure judged (the load's http/rps/mean unless --metric).
	services []string
	metric   string
	// side is --side-by-side's ports and loads (nil: one commit after the other).
	side *together
}

// judge runs a commit and compares it with the good one.
func (b *bisector) judge(ctx context.Context, pr bisect.Probe) (bisect.Step, error) {
	c, n, about, again := pr.Commit, pr.N, pr.About, ""
	if pr.Again > 0 {
		again = fmt.Sprintf(" (measured again: %d of at most %d; its place was near the ends' midpoint)", pr.Again+1, 1+bisect.Confirmations)
	}
	fmt.Fprintf(b.st.Stderr, "bisect: step %d of about %d: %s %s%s\n", n, about, c.Short(), c.Subject, again)
	fig := bisect.FigureOf(b.f.metricName())
	if c.SHA == b.bad.SHA && b.worst != nil { // measured already: the bad end's verdict, against good
		return b.step(c, b.worst, b.base, nil), nil
	}
	g, w := b.goodRun.fresh(), b.badRun.fresh()
	cand, err := b.prepare(ctx, c)
	failed := cand
	if err == nil {
		defer cand.release()
		failed, err = b.rounds(ctx, b.decided(cand, g, w), g, cand, w)
	}
	if ctx.Err() != nil {
		return bisect.Step{}, ctx.Err()
	}
	if err != nil && failed != cand {
		return bisect.Step{}, fmt.Errorf("measuring the end %s beside %s: %w", failed.c.Short(), c.Short(), err)
	}
	if err != nil { // the commit does not export, resolve, build or run: skipped, as git bisect skip
		s := bisect.Step{Commit: c, Verdict: bisect.Skip, Note: firstLineOf(err.Error())}
		fmt.Fprintln(b.st.Stderr, "bisect: "+fig.Row(n, about, s).Line())
		return s, nil
	}
	s := b.step(c, cand.acc, g.acc, w.acc)
	s.Rerun = cand.rerun
	fmt.Fprintln(b.st.Stderr, "bisect: "+fig.Row(n, about, s).Line())
	return s, nil
}

// step is a run's figure and its verdict. Against the good end alone (the bad end's), by crank
// compare's test with the precision as the smallest change that counts: worse is bad. Beside both
// ends, by where it lies between them round by round (bisect.Place): significantly nearer one end
// is that end's verdict; halfway within the precision (all three means known within it), the
// nearer end; otherwise cannot tell. Its change and p from good stay crank compare's, as crank
// compare of the two would print them.
func (b *bisector) step(c bisect.Commit, res, base, worst *results.Result) bisect.Step {
	var u []*results.Result
	var fitted int
	switch { // side by side, every figure below without the positions' own costs
	case base != nil && worst == nil:
		u, fitted = b.unbiased(base, res)
		base, res = u[0], u[1]
	case base != nil:
		u, fitted = b.unbiased(base, res, worst)
		base, res, worst = u[0], u[1], u[2]
	}
	p := res.Precision
	s := bisect.Step{Commit: c, Mean: p.Mean, HalfWidth: p.HalfWidth, Iterations: p.Iterations}
	if base == nil {
		return s
	}
	s.Change = p.Mean/base.Precision.Mean - 1
	s.GoodMean = base.Precision.Mean
	vg, pg := b.verdict(base, res, fitted)
	s.PValue, s.Note = pg, "against good: "+string(vg)
	if worst == nil {
		// Not worse is "good" only when both means are known within the precision: a change under
		// the precision measured with intervals wider than it (inconclusive to crank compare) may
		// hide a slowdown as large as the intervals, and "no commit is worse" would be a guess.
		switch {
		case vg == gate.VerdictRegressed:
			s.Verdict = bisect.Bad
		case vg == gate.VerdictImproved || p.Met && base.Precision.Met:
			s.Verdict = bisect.Good
		default:
			s.Verdict = bisect.CannotTell
		}
		return s
	}
	pl := b.place(base, res, worst, fitted)
	if way, half := pl.Way(); !math.IsInf(half, 0) && !math.IsNaN(half) { // JSON has no infinity
		s.Way, s.WayHalfWidth = way, half
	}
	switch v := pl.Verdict(); {
	case v != "":
		s.Verdict = v
	case p.Met && base.Precision.Met && worst.Precision.Met:
		s.Verdict = map[bool]string{true: bisect.Good, false: bisect.Bad}[pl.Toward <= 0]
	default:
		s.Verdict = bisect.CannotTell
	}
	return s
}

// place is where the commit's iterations lie between the ends' of the same rounds; fitted is the
// degrees of freedom spent on them before (unbiased's).
func (b *bisector) place(base, res, worst *results.Result, fitted int) bisect.Placement {
	return bisect.PlaceFitted(runner.ResultValues(base, b.services, b.metric), runner.ResultValues(res, b.services, b.metric),
		runner.ResultValues(worst, b.services, b.metric), fitted)
}

// verdict is crank compare's verdict on the metric of head against base, and its p-value: side by
// side, by the paired test, not counting the fitted degrees of freedom (unbiased's).
func (b *bisector) verdict(base, head *results.Result, fitted int) (gate.Verdict, float64) {
	rep, err := gate.CompareResults(base, head, gate.CompareOptions{Metrics: []string{b.f.metric.Metric},
		Threshold: b.f.run.spread.auto.precision, Paired: b.side != nil, PairedFitted: fitted}, nil)
	if err != nil {
		return gate.VerdictInconclusive, 0
	}
	for _, sr := range rep.Services {
		if b.f.metric.Service != "" && sr.Service != b.f.metric.Service {
			continue
		}
		for _, row := range sr.Rows {
			if row.Metric == b.f.metric.Metric && len(row.Compared) > 0 {
				return row.Compared[0].Verdict, row.Compared[0].PValue
			}
		}
	}
	return gate.VerdictInconclusive, 0
}

func firstLineOf(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// finish prints the path and the answer, writes the JSON (a search that stopped says why in it),
// and gives the exit status.
func (b *bisector) finish(r bisect.Result, searchErr error) int {
	code := ExitOK
	if searchErr != nil {
		r.Stopped, code = searchErr.Error(), ExitFailed
	}
	bisect.WritePath(b.st.Stdout, r)
	if r.Stopped != "" {
		fmt.Fprintf(b.st.Stderr, "crank bisect: %s\n", r.Stopped)
	}
	if b.f.run.jsonOut != "" {
		doc := &results.Result{StartTime: time.Now().UTC(), Scenario: b.f.run.scenario, ReturnCode: code,
			JobResults: results.JobResults{Jobs: map[string]*results.JobResult{}}}
		if raw, err := json.Marshal(r); err == nil {
			doc.Bisect = raw
		}
		if !writeJSON(b.st, b.f.run.jsonOut, doc) && code == ExitOK {
			code = ExitFailed
		}
	}
	return code
}
