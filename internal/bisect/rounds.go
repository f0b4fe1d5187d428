package bisect

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/crankshaft/crankshaft/internal/controller"
	"github.com/crankshaft/crankshaft/internal/gate"
	"github.com/crankshaft/crankshaft/internal/results"
	rnd "github.com/crankshaft/crankshaft/internal/rounds"
	"github.com/crankshaft/crankshaft/internal/runner"
)

// A machine's speed drifts over minutes (another tenant of the host, its clock): measured one
// after the other, a commit benchmarked later looks faster or slower than the ends measured first
// (a search here once measured a good commit 3.8 % faster than the good end and blamed the last
// commit). So the commits a step compares run interleaved: one iteration of each in turn, round
// after round, and the test compares samples taken over the same minutes.

// CommitRun is a commit's measurement in rounds: its exported folder (for a local source), the
// run of one iteration of it, and its iterations so far.
type CommitRun struct {
	c   Commit
	dir string // the folder the commit was exported to; "" for a repository the agent clones
	// at is the commit prepared by internal/runner (resolved, its thresholds checked) in each
	// position side by side; at[0] alone otherwise. Its measurements are judged by it (Judge).
	at  []*runner.Prepared
	acc *results.Result
	// rerun counts the iterations run again on a disturbed machine (maxRerun).
	rerun int
	// stolen is the steal during the latest iteration, kept though the hypervisor still took
	// StealShare of the machine once it was run again ("" when it did not: stolenDuring).
	stolen string
	// dropped counts the rounds of the commit not counted: still under steal once run again (the
	// commit's or another's of the round; notCounted).
	dropped int
	// profiled is the bisected service's profiles of each run that has some (collect, goProfiles).
	profiled []ProfiledRun
}

// prepare exports a local source's commit and prepares its scenario (runner.Prepare), once for all
// its rounds. Side by side, once for each position a round gives it (its copy's port: serverPort
// plus the position).
func (b *Bench) prepare(ctx context.Context, c Commit) (*CommitRun, error) {
	cr := &CommitRun{c: c}
	where, err := b.where(ctx, cr)
	if err != nil {
		cr.Release()
		return nil, err
	}
	positions := 1
	if b.side != nil {
		positions = b.positions
	}
	for k := range positions {
		plan := b.c.Plan
		plan.Source = b.c.Plan.Source.Override(where)
		if b.side != nil {
			plan.Source = b.side.move(plan.Source, b.src.service, k)
		}
		p, err := runner.Prepare(ctx, b.c.Quiet(), plan)
		if err != nil {
			cr.Release()
			return nil, err
		}
		b.services, b.metric = runner.Headline(p.Resolved)
		if b.want.Metric != "" {
			b.metric = b.want.Metric
		}
		if b.want.Service != "" {
			b.services = []string{b.want.Service}
		}
		cr.at = append(cr.at, p)
	}
	return cr, nil
}

// where is the override that makes the scenario's source the commit: the agent's clone checks it
// out, or a local source's commit is exported into a folder of its own (cr.dir).
func (b *Bench) where(ctx context.Context, cr *CommitRun) ([2]string, error) {
	c := cr.c
	if b.src.remote {
		return [2]string{b.src.service + ".source.branchOrCommit", c.SHA}, nil
	}
	dir, err := os.MkdirTemp(b.tmp, "crank-"+b.who+"-"+c.Short()+"-")
	if err != nil {
		return [2]string{}, err
	}
	cr.dir = dir
	if err := b.src.repo.Export(ctx, c, dir); err != nil {
		return [2]string{}, err
	}
	folder, err := Folder(dir, b.src.local)
	if err != nil {
		return [2]string{}, fmt.Errorf("commit %s: source.localFolder %s: %w", c.Short(), b.src.local, err)
	}
	return [2]string{b.src.service + ".source.localFolder", folder}, nil
}

// run is the controller's run of one iteration of the commit in position k.
func (cr *CommitRun) run(k int) controller.Run {
	p := cr.at[k]
	return controller.Run{Scenario: p.Resolved.Scenario, Iterations: 1, Services: p.Services()}
}

// Release removes the commit's exported folder.
func (cr *CommitRun) Release() {
	if cr != nil && cr.dir != "" {
		os.RemoveAll(cr.dir)
	}
}

// fresh is the same commit with no iteration yet (its folder and run shared).
func (cr *CommitRun) fresh() *CommitRun {
	return &CommitRun{c: cr.c, dir: cr.dir, at: cr.at}
}

// maxRerun is how many times in a row an iteration on a disturbed machine is run again; the next
// is kept whatever its disturbance. Once: at twice, a make test on this VM's host at 10-48 % of
// steal ran the mutex search's iterations up to three times each and past its 5 minutes.
const maxRerun = 1

// noProbe is why a round's measurement is not probed (the judgement's note, Judge).
const noProbe = "a round of commits measured against each other is not probed: the probe would be a run of its own between the rounds"

// ErrUnjudged is a commit whose measurement internal/runner's judgement says is not of its work
// (runner.Unmeasured: error-bound, unserved): its figure would compare failures, or answers the
// application did not give, with another commit's work, so the commit cannot be judged.
var ErrUnjudged = errors.New("cannot be judged")

// once runs one iteration of the commit, has it judged (measure: crank's scripts on it among the
// rest) and adds it to its iterations; an iteration that is no measurement of the commit's work
// fails it (unjudged), and so does its scripts' error (runner.ErrScripts).
func (b *Bench) once(ctx context.Context, cr *CommitRun) error {
	res, again, err := b.measure(ctx, cr.c.Short()+": iteration", cr.run(0), false,
		func(res *results.Result) error { return judged(cr.c, cr.at[0], res) })
	cr.rerun += again // the re-runs started count, as they were said
	if err == nil {
		cr.stolen = stolenDuring(res)
		err = unjudged(cr.c, res)
	}
	if err != nil {
		return err
	}
	b.add(cr, res)
	return nil
}

// measure runs run on the bench's executor and judges it (judge, internal/runner's judgement,
// whose error is the measure's and is not run again). A
// measure during which the machine was disturbed (rounds.DisturbanceOf: the judgement's
// machine-busy, or the hypervisor giving StealShare of the CPU time to other guests; a round of
// commits side by side, paired, only by steal: Disturbance.DisturbedPaired) is run again,
// at most maxRerun times in a row, and the line says so, what naming the measure: on this
// project's VM such bursts moved a pinned app's requests/s by a third, more than the slowdowns
// bisect looks for. It returns the measure kept and how many were run again.
func (b *Bench) measure(ctx context.Context, what string, run controller.Run, paired bool, judge func(*results.Result) error) (*results.Result, int, error) {
	disturbed := func(res *results.Result) bool {
		d := rnd.DisturbanceOf(res)
		return paired && d.DisturbedPaired() || !paired && d.Disturbed()
	}
	return rnd.Rerun(1+maxRerun, func() (*results.Result, error) {
		res, err := b.ex.Execute(ctx, run)
		if err == nil {
			err = judge(res)
		}
		return res, err
	}, disturbed,
		func(res *results.Result) {
			fmt.Fprintf(b.c.Stderr, "%s: %s run again: the machine was disturbed (%s)\n", b.who, what, rnd.DisturbanceOf(res))
		})
}

// stolenDuring says how much of the machine the hypervisor took (steal) while res was measured,
// when it reached StealShare (rounds.Disturbance), "" otherwise.
func stolenDuring(res *results.Result) string {
	if res == nil {
		return ""
	}
	if d := rnd.DisturbanceOf(res); d.Stolen {
		return rnd.Disturbance{Steal: d.Steal, Stolen: true}.String()
	}
	return ""
}

// judged has a run of commit c judged by its prepared run p (runner.Prepared.Judge); the scripts'
// error (runner.ErrScripts), naming the commit, is the judgement's.
func judged(c Commit, p *runner.Prepared, res *results.Result) error {
	if _, err := p.Judge(res, noProbe); err != nil {
		return fmt.Errorf("commit %s: %w", c.Short(), err)
	}
	return nil
}

// unjudged is ErrUnjudged, naming the commit and the verdict, when the judgement of its measure
// says it is no measurement of its work (nil otherwise).
func unjudged(c Commit, res *results.Result) error {
	if d, bad := runner.Unmeasured(res); bad {
		return fmt.Errorf("commit %s %w: its measurement's diagnosis is %s: %s", c.Short(), ErrUnjudged, d.Kind, firstLineOf(d.Message))
	}
	return nil
}

// add makes a run one more iteration of the commit, its judgement the commit's latest (its
// diagnosis and thresholds, as Step shows them), and keeps the bisected service's profiles of it
// with the requests the run counted (a commit's iterations keep only the latest run's).
func (b *Bench) add(cr *CommitRun, res *results.Result) {
	cr.acc = results.AddIteration(cr.acc, res)
	cr.acc.JobResults.Diagnostics, cr.acc.Thresholds = res.JobResults.Diagnostics, res.Thresholds
	cr.acc.Precision = runner.ResultPrecision(cr.acc, b.services, b.metric, b.c.Plan.Precision)
	if jr := res.JobResults.Jobs[b.src.service]; jr != nil && len(jr.Profiles) > 0 {
		cr.profiled = append(cr.profiled, ProfiledRun{Profiles: jr.Profiles, Requests: lastRequests(res)})
	}
}

// rounds measures the commits interleaved, one iteration of each per round, until every one's
// figure is known within --precision or decided says the comparison is settled (each after at
// least runner.MinAutoIterations rounds), or after --max-iterations rounds. A round still under
// steal once run again is not counted (notCounted) and is measured again in the same order or
// positions; it counts towards --max-iterations. The first commit that fails to build or run ends
// it with its error and which commit it was.
func (b *bisector) rounds(ctx context.Context, decided func() bool, crs ...*CommitRun) (*CommitRun, error) {
	fig := FigureOf(b.metric)
	round := 0 // the rounds counted
	for tried := 1; tried <= b.c.Plan.Run.Iterations; tried++ {
		marks := marksOf(crs)
		if failed, err := b.Round(ctx, round, crs...); err != nil {
			return failed, err
		}
		if b.notCounted(marks, round+1, tried) {
			continue
		}
		round++
		met := round >= runner.MinAutoIterations
		var line []string
		for _, cr := range crs {
			p := cr.acc.Precision
			met = met && p.Met
			line = append(line, cr.c.Short()+" "+roundEstimate(fig, p.Mean, p.Relative, round))
		}
		fmt.Fprintf(b.c.Stderr, "bisect: round %d: %s%s\n", round, strings.Join(line, ", "), intervalsFrom(round))
		if met || round >= runner.MinAutoIterations && decided() {
			break
		}
	}
	return nil, nil
}

// roundEstimate is a commit's mean after round rounds, with its interval once it has one that
// says something: before runner.MinAutoIterations rounds there is none (one round's read "± 0.0 %",
// two rounds' "± 204.1 %").
func roundEstimate(fig Figure, mean, relative float64, round int) string {
	if round < runner.MinAutoIterations {
		return fig.Value(mean)
	}
	return fig.Estimate(mean, relative)
}

// intervalsFrom says, on the rounds that show no interval, from which round they are shown.
func intervalsFrom(round int) string {
	if round < runner.MinAutoIterations {
		return fmt.Sprintf(" (intervals from round %d)", runner.MinAutoIterations)
	}
	return ""
}

// decided reports whether a commit measured beside the ends is settled by significance alone: with
// no bad end, worse than good (crank compare's test); beside both, significantly nearer one of them
// (Place). More rounds would only narrow the intervals of an answer already given.
func (b *bisector) decided(head, base, worst *CommitRun) func() bool {
	return func() bool {
		if worst == nil {
			u, fitted := b.unbiased(base.acc, head.acc)
			vg, _ := b.verdict(u[0], u[1], fitted)
			return vg == gate.VerdictRegressed
		}
		u, fitted := b.unbiased(base.acc, head.acc, worst.acc)
		return b.place(u[0], u[1], u[2], fitted).Verdict() != ""
	}
}
