package bisect

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/crankshaft/crankshaft/internal/config"
	"github.com/crankshaft/crankshaft/internal/gate"
	"github.com/crankshaft/crankshaft/internal/output"
	"github.com/crankshaft/crankshaft/internal/results"
	"github.com/crankshaft/crankshaft/internal/runner"
	"github.com/crankshaft/crankshaft/internal/threshold"
)

// Flags are crank bisect's own flags, as the command line read them.
type Flags struct {
	Good, Bad, Service string
	SideBySide         bool
	Metric             threshold.Threshold // Service and Metric only
}

// Main is `crank bisect` once its flags are read: the ends resolved and checked, measured in
// rounds, then the search over the commits between them (Search), each commit measured beside
// both ends; its run options' iterations are --iterations auto's (Plan.Run.Iterations at most,
// Plan.Precision).
func Main(ctx context.Context, c *runner.Command, fl Flags) int {
	b, commits, err := start(ctx, c, fl)
	if err != nil {
		fmt.Fprintf(c.Stderr, "crank bisect: %v\n", err)
		return runner.ExitBadInput
	}
	ctl, err := c.Controller()
	if err != nil {
		fmt.Fprintf(c.Stderr, "crank bisect: %v\n", err)
		return runner.ExitBadInput
	}
	defer ctl.Close(context.WithoutCancel(ctx))
	b.ex = ctl
	b.announce(len(commits))
	return b.run(ctx, commits)
}

// start resolves the scenario, finds the bisected source and the commits between the ends, and
// checks the figure (and side by side, the scenario).
func start(ctx context.Context, c *runner.Command, fl Flags) (*bisector, []Commit, error) {
	bench, resolved, err := NewBench(ctx, c, "bisect", fl.Service, fl.Metric)
	if err == nil && fl.SideBySide {
		err = bench.SideBySide(resolved, maxPositions)
	}
	if err != nil {
		return nil, nil, err
	}
	good, gerr := bench.src.repo.Resolve(ctx, fl.Good)
	bad, berr := bench.src.repo.Resolve(ctx, fl.Bad)
	var commits []Commit
	if err = errors.Join(gerr, berr); err == nil {
		commits, err = bench.src.repo.Range(ctx, good, bad)
	}
	if err != nil {
		return nil, nil, err
	}
	return &bisector{Bench: bench, f: fl, good: good, bad: bad, profiled: profiled(resolved, bench.src.service),
		measured: map[string][]ProfiledRun{}}, commits, nil
}

// profiled says whether the service's job records profiles (collect, goProfiles): then the
// search ends with what grew from the last good commit to the first bad one.
func profiled(r *config.Resolved, service string) bool {
	for _, s := range r.Services {
		if s.Name == service && (s.Job.Collect || s.Job.GoProfiles) {
			return true
		}
	}
	return false
}

// announce says what the search will do.
func (b *bisector) announce(n int) {
	fmt.Fprintf(b.c.Stderr, "bisect: %d commits after %s up to %s; about %d steps, each until %s is within %.1f %%\n",
		n, b.good.Short(), b.bad.Short(), Steps(n), b.f.metricName(), 100*b.c.Plan.Precision)
	if side := b.side; side != nil {
		fmt.Fprintf(b.c.Stderr, "bisect: side by side: the commits of a round at once, %s on ports %d-%d (the commits taking them in turn), each with its own load\n",
			b.src.service, side.port, side.port+b.positions-1)
		for _, l := range side.open {
			fmt.Fprintf(b.c.Stderr, "bisect: side by side: load %q has no fixed rate (rate 0): the commits' loads compete for the machine, and what one gets the others do not; set --%s.variables.rate\n", l, l)
		}
	}
}

// run measures the ends first, interleaved: a range whose bad end is not worse ends here;
// otherwise each commit is told by which end it is significantly nearer, the three measured in the
// same rounds, which holds on a noisy, drifting machine where a small excursion from good alone
// would not.
func (b *bisector) run(ctx context.Context, commits []Commit) int {
	good, bad := b.good, b.bad
	goodRun, err := b.prepare(ctx, good)
	if err != nil {
		fmt.Fprintf(b.c.Stderr, "crank bisect: the good commit %s: %v\n", good.Short(), err)
		return runner.ExitFailed
	}
	defer goodRun.Release()
	badRun, err := b.prepare(ctx, bad)
	if err != nil {
		fmt.Fprintf(b.c.Stderr, "crank bisect: the bad commit %s: %v\n", bad.Short(), err)
		return runner.ExitFailed
	}
	defer badRun.Release()
	b.goodRun, b.badRun = goodRun, badRun
	if failed, err := b.rounds(ctx, b.decided(badRun, goodRun, nil), goodRun, badRun); err != nil {
		which := map[bool]string{true: "good", false: "bad"}[failed == goodRun]
		fmt.Fprintf(b.c.Stderr, "crank bisect: the %s commit %s: %v\n", which, failed.c.Short(), err)
		return runner.ExitFailed
	}
	res := b.ends(len(commits))
	switch res.BadEnd.Verdict {
	case CannotTell: // imprecise and not significantly worse (or too few rounds counted): not "none is worse" either
		return b.finish(res, cannotTell("the bad end "+bad.Short(), res.BadEnd, "ask a finer --precision or more --max-iterations"))
	case Good:
		res.NoneWorse = true
		return b.finish(res, nil)
	}
	b.worst = badRun.acc
	found, searchErr := Search(ctx, commits, b.judge)
	found.Metric, found.Good, found.Bad, found.Baseline, found.BadEnd = res.Metric, good, bad, res.Baseline, res.BadEnd
	found.SideBySide = res.SideBySide
	return b.finish(found, searchErr)
}

// ends is the answer so far once the ends are measured: the good end's row and the bad end's
// verdict against it, both said.
func (b *bisector) ends(n int) Result {
	res := Result{Metric: b.f.metricName(), Good: b.good, Bad: b.bad, SideBySide: b.f.SideBySide}
	base, worst := b.goodRun.acc, b.badRun.acc
	b.base = base
	if b.tooFew(b.badRun) { // steal left the ends' rounds too few: cannot tell, the ends as counted
		res.Baseline, res.BadEnd = stolenStep(b.good, b.goodRun), stolenStep(b.bad, b.badRun)
		res.Baseline.Verdict = Good
	} else {
		ends, _ := b.unbiased(base, worst)
		res.Baseline = b.step(b.good, ends[0], nil, nil) // as the bad end's row has it
		res.Baseline.Verdict = Good
		res.Baseline.Rerun, res.Baseline.Dropped = b.goodRun.rerun, b.goodRun.dropped
		res.BadEnd = b.step(b.bad, worst, base, nil)
		res.BadEnd.Rerun, res.BadEnd.Dropped = b.badRun.rerun, b.badRun.dropped
	}
	res.BadEnd.Position = n
	fig := FigureOf(res.Metric)
	fmt.Fprintln(b.c.Stderr, "bisect: "+fig.Row(0, 0, res.Baseline).Line())
	fmt.Fprintln(b.c.Stderr, "bisect: "+fig.Row(-1, 0, res.BadEnd).Line())
	return res
}

// metricName is the figure bisected, as given: "load:http/rps/mean".
func (fl Flags) metricName() string {
	if fl.Metric.Service == "" {
		return fl.Metric.Metric
	}
	return fl.Metric.Service + ":" + fl.Metric.Metric
}

// sourceOf is where the bisected service's source comes from: a local git folder (each commit
// exported into a folder of its own) or a repository the agent clones.
type sourceOf struct {
	service string
	repo    Repo
	local   string // the folder inside repo.Dir the job uploads ("" for a repository)
	remote  bool
}

func (fl Flags) source(ctx context.Context, r *config.Resolved) (sourceOf, error) {
	for _, s := range r.Services {
		if fl.Service != "" && !strings.EqualFold(s.Name, fl.Service) || s.Job.Source == nil {
			continue
		}
		src := s.Job.Source
		switch {
		case src.LocalFolder != "":
			top := Toplevel(ctx, src.LocalFolder)
			if top == "" {
				return sourceOf{}, fmt.Errorf("service %q: source.localFolder %s is not in a git work tree", s.Name, src.LocalFolder)
			}
			rel, err := filepath.Rel(top, src.LocalFolder)
			if err != nil {
				return sourceOf{}, err
			}
			return sourceOf{service: s.Name, repo: Repo{Dir: top}, local: rel}, nil
		case src.Repository != "":
			if fi, err := os.Stat(src.Repository); err == nil && fi.IsDir() {
				return sourceOf{service: s.Name, repo: Repo{Dir: src.Repository}, remote: true}, nil
			}
			return sourceOf{}, fmt.Errorf("service %q: source.repository %s: bisect reads the history of a repository on this machine; clone it and give it as source.localFolder", s.Name, src.Repository)
		}
	}
	if fl.Service != "" {
		return sourceOf{}, fmt.Errorf("--service %q: no such service with a source", fl.Service)
	}
	return sourceOf{}, fmt.Errorf("no service of scenario %q has a source to bisect", r.Scenario)
}

// bisector runs (its Bench) and judges commits.
type bisector struct {
	*Bench
	f         Flags
	base      *results.Result // the good end, as the ends' rounds measured it
	worst     *results.Result // the bad end, likewise
	good, bad Commit
	// goodRun and badRun are the ends' exported folders, measured again beside each commit.
	goodRun, badRun *CommitRun
	// profiled: the service records profiles; measured is each commit's runs' profiles of its
	// latest measurement, for what grew from the last good commit to the first bad one.
	profiled bool
	measured map[string][]ProfiledRun
}

// judge runs a commit and compares it with the good one.
func (b *bisector) judge(ctx context.Context, pr Probe) (Step, error) {
	c, n, about, again := pr.Commit, pr.N, pr.About, ""
	if pr.Again > 0 {
		again = fmt.Sprintf(" (measured again: %d of at most %d; its place was near the ends' midpoint)", pr.Again+1, 1+Confirmations)
	}
	fmt.Fprintf(b.c.Stderr, "bisect: step %d of about %d: %s %s%s\n", n, about, c.Short(), c.Subject, again)
	fig := FigureOf(b.f.metricName())
	if c.SHA == b.bad.SHA && b.worst != nil { // measured already: the bad end's verdict, against good
		return b.step(c, b.worst, b.base, nil), nil
	}
	g, w := b.goodRun.fresh(), b.badRun.fresh()
	cand, err := b.prepare(ctx, c)
	failed := cand
	if err == nil {
		defer cand.Release()
		failed, err = b.rounds(ctx, b.decided(cand, g, w), g, cand, w)
	}
	if ctx.Err() != nil {
		return Step{}, ctx.Err()
	}
	if err != nil && failed != cand {
		return Step{}, fmt.Errorf("measuring the end %s beside %s: %w", failed.c.Short(), c.Short(), err)
	}
	// It ran, but not as a measurement of its work (no place to skip it by), or the scenario's
	// scripts failed on its results (not the commit: every commit's would): the search stops.
	if errors.Is(err, ErrUnjudged) || errors.Is(err, runner.ErrScripts) {
		return Step{}, err
	}
	if err != nil { // the commit does not export, resolve, build or run: skipped, as git bisect skip
		s := Step{Commit: c, Verdict: Skip, Note: firstLineOf(err.Error())}
		fmt.Fprintln(b.c.Stderr, "bisect: "+fig.Row(n, about, s).Line())
		return s, nil
	}
	var s Step
	if b.tooFew(cand) { // steal left its rounds too few: cannot tell
		s = stolenStep(c, cand)
	} else {
		s = b.step(c, cand.acc, g.acc, w.acc)
		s.Rerun, s.Dropped = cand.rerun, cand.dropped
	}
	b.measured[c.SHA] = cand.profiled
	fmt.Fprintln(b.c.Stderr, "bisect: "+fig.Row(n, about, s).Line())
	return s, nil
}

// step is a run's figure and its verdict. Against the good end alone (the bad end's), by crank
// compare's test with the precision as the smallest change that counts: worse is bad. Beside both
// ends, by where it lies between them round by round (Place): significantly nearer one end
// is that end's verdict; halfway within the precision (all three means known within it), the
// nearer end; otherwise cannot tell. Its change and p from good stay crank compare's, as crank
// compare of the two would print them.
func (b *bisector) step(c Commit, res, base, worst *results.Result) Step {
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
	s := Step{Commit: c, Mean: p.Mean, HalfWidth: p.HalfWidth, Iterations: p.Iterations,
		Diagnosis: res.JobResults.Diagnostics, Thresholds: res.Thresholds}
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
			s.Verdict = Bad
		case vg == gate.VerdictImproved || p.Met && base.Precision.Met:
			s.Verdict = Good
		default:
			s.Verdict = CannotTell
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
		s.Verdict = map[bool]string{true: Good, false: Bad}[pl.Toward <= 0]
	default:
		s.Verdict = CannotTell
	}
	return s
}

// place is where the commit's iterations lie between the ends' of the same rounds; fitted is the
// degrees of freedom spent on them before (unbiased's).
func (b *bisector) place(base, res, worst *results.Result, fitted int) Placement {
	return PlaceFitted(runner.ResultValues(base, b.services, b.metric), runner.ResultValues(res, b.services, b.metric),
		runner.ResultValues(worst, b.services, b.metric), fitted)
}

// verdict is crank compare's verdict on the metric of head against base, and its p-value: side by
// side, by the paired test, not counting the fitted degrees of freedom (unbiased's).
func (b *bisector) verdict(base, head *results.Result, fitted int) (gate.Verdict, float64) {
	rep, err := gate.CompareResults(base, head, gate.CompareOptions{Metrics: []string{b.f.Metric.Metric},
		Threshold: b.c.Plan.Precision, Paired: b.side != nil, PairedFitted: fitted}, nil)
	if err != nil {
		return gate.VerdictInconclusive, 0
	}
	for _, sr := range rep.Services {
		if b.f.Metric.Service != "" && sr.Service != b.f.Metric.Service {
			continue
		}
		for _, row := range sr.Rows {
			if row.Metric == b.f.Metric.Metric && len(row.Compared) > 0 {
				return row.Compared[0].Verdict, row.Compared[0].PValue
			}
		}
	}
	return gate.VerdictInconclusive, 0
}

// profilesOf is the profiles of a commit's latest measurement: the ends', of their first rounds.
func (b *bisector) profilesOf(c Commit) []ProfiledRun {
	switch {
	case b.measured[c.SHA] != nil:
		return b.measured[c.SHA]
	case c.SHA == b.good.SHA:
		return b.goodRun.profiled
	case c.SHA == b.bad.SHA:
		return b.badRun.profiled
	}
	return nil
}

func firstLineOf(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// finish prints the path and the answer, writes the JSON (a search that stopped says why in it),
// and gives the exit status.
func (b *bisector) finish(r Result, searchErr error) int {
	code := runner.ExitOK
	if searchErr != nil {
		r.Stopped, code = searchErr.Error(), runner.ExitFailed
	}
	r.Dropped = r.dropped()
	if r.FirstBad != "" && b.profiled {
		r.Grew = Growths(b.src.service, r.LastGood(), Commit{SHA: r.FirstBad, Subject: r.FirstBadSubject}, b.profilesOf(r.LastGood()), b.profilesOf(Commit{SHA: r.FirstBad}))
	}
	WritePath(b.c.Stdout, r)
	WriteGrowths(b.c.Stdout, r.Grew)
	if r.Stopped != "" {
		fmt.Fprintf(b.c.Stderr, "crank bisect: %s\n", r.Stopped)
	}
	if b.c.JSON != "" {
		doc := &results.Result{StartTime: time.Now().UTC(), Scenario: b.c.Plan.Source.Scenario, ReturnCode: code,
			JobResults: results.JobResults{Jobs: map[string]*results.JobResult{}}}
		if raw, err := json.Marshal(r); err == nil {
			doc.Bisect = raw
		}
		if b.c.WriteTo(context.Background(), output.JSON, b.c.JSON, doc) != nil && code == runner.ExitOK {
			code = runner.ExitFailed
		}
	}
	return code
}
