package bisect

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/crankshaft/crankshaft/internal/controller"
	"github.com/crankshaft/crankshaft/internal/diagnose"
	"github.com/crankshaft/crankshaft/internal/gate"
	"github.com/crankshaft/crankshaft/internal/measure"
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
	// at is the run of one iteration in each position side by side; at[0] alone otherwise.
	at  []controller.Run
	acc *results.Result
	// rerun counts the iterations run again for steal (maxRerun).
	rerun int
	// profiled is the bisected service's profiles of each run that has some (collect, goProfiles).
	profiled []ProfiledRun
}

// prepare exports a local source's commit and resolves its scenario, once for all its rounds.
// Side by side, once for each position a round gives it (its copy's port: serverPort plus the
// position).
func (b *Bench) prepare(ctx context.Context, c Commit) (*CommitRun, error) {
	cr := &CommitRun{c: c}
	var where [2]string
	if b.src.remote {
		where = [2]string{b.src.service + ".source.branchOrCommit", c.SHA}
	} else {
		dir, err := os.MkdirTemp(b.tmp, "crank-"+b.who+"-"+c.Short()+"-")
		if err != nil {
			return nil, err
		}
		cr.dir = dir
		if err := b.src.repo.Export(ctx, c, dir); err != nil {
			cr.Release()
			return nil, err
		}
		folder, err := Folder(dir, b.src.local)
		if err != nil {
			cr.Release()
			return nil, fmt.Errorf("commit %s: source.localFolder %s: %w", c.Short(), b.src.local, err)
		}
		where = [2]string{b.src.service + ".source.localFolder", folder}
	}
	positions := 1
	if b.side != nil {
		positions = b.positions
	}
	for k := range positions {
		src := b.c.Plan.Source.Override(where)
		if b.side != nil {
			src = b.side.move(src, b.src.service, k)
		}
		r, err := b.c.Resolve(ctx, src, true)
		if err != nil {
			cr.Release()
			return nil, err
		}
		b.services, b.metric = runner.Headline(r)
		if b.want.Metric != "" {
			b.metric = b.want.Metric
		}
		if b.want.Service != "" {
			b.services = []string{b.want.Service}
		}
		cr.at = append(cr.at, controller.Run{Scenario: r.Scenario, Iterations: 1, Services: runner.Services(r, src.Interval)})
	}
	return cr, nil
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

// maxRerun is how many times in a row an iteration disturbed by steal is run again; the next is
// kept whatever its steal. Once: at twice, a make test on this VM's host at 10-48 % of steal ran
// the mutex search's iterations up to three times each and past its 5 minutes.
const maxRerun = 1

// once runs one iteration of the commit and adds it to its iterations. An iteration during which
// the machine's hypervisor gave StealShare or more of its CPU time to other guests (machine-busy's
// rule, diagnose.Stolen) is run again, at most maxRerun times in a row: on this project's VM such
// bursts moved a pinned app's requests/s by a third, more than the slowdowns bisect looks for.
func (b *Bench) once(ctx context.Context, cr *CommitRun) error {
	th := diagnose.DefaultThresholds()
	res, again, err := rnd.Rerun(1+maxRerun, func() (*results.Result, error) { return b.ctl.Execute(ctx, cr.at[0]) },
		func(res *results.Result) bool { _, stolen := diagnose.Stolen(res, th); return stolen },
		func(res *results.Result) {
			steal, _ := diagnose.Stolen(res, th)
			fmt.Fprintf(b.c.Stderr, "%s: %s: iteration run again: the machine's hypervisor gave %s of its CPU time to other guests (%s, from %.0f %%)\n",
				b.who, cr.c.Short(), results.Value(measure.CPUSteal, steal), measure.CPUSteal, 100*th.StealShare)
		})
	cr.rerun += again // the re-runs started count, as they were said
	if err != nil {
		return err
	}
	b.add(cr, res)
	return nil
}

// add makes a run one more iteration of the commit, and keeps the bisected service's profiles of
// it with the requests the run counted (a commit's iterations keep only the latest run's).
func (b *Bench) add(cr *CommitRun, res *results.Result) {
	cr.acc = results.AddIteration(cr.acc, res)
	cr.acc.Precision = runner.ResultPrecision(cr.acc, b.services, b.metric, b.c.Plan.Precision)
	if jr := res.JobResults.Jobs[b.src.service]; jr != nil && len(jr.Profiles) > 0 {
		cr.profiled = append(cr.profiled, ProfiledRun{Profiles: jr.Profiles, Requests: lastRequests(res)})
	}
}

// rounds measures the commits interleaved, one iteration of each per round, until every one's
// figure is known within --precision or decided says the comparison is settled (each after at
// least runner.MinAutoIterations rounds), or after --max-iterations rounds. The first commit that fails
// to build or run ends it with its error and which commit it was.
func (b *bisector) rounds(ctx context.Context, decided func() bool, crs ...*CommitRun) (*CommitRun, error) {
	fig := FigureOf(b.metric)
	for round := 1; round <= b.c.Plan.Run.Iterations; round++ {
		met := round >= runner.MinAutoIterations
		if failed, err := b.Round(ctx, round-1, crs...); err != nil {
			return failed, err
		}
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
