package bisect

import (
	"context"
	"io"

	"github.com/crankshaft/crankshaft/internal/config"
	"github.com/crankshaft/crankshaft/internal/results"
	rnd "github.com/crankshaft/crankshaft/internal/rounds"
	"github.com/crankshaft/crankshaft/internal/runner"
	"github.com/crankshaft/crankshaft/internal/threshold"
)

// Bench measures commits of the application's git repository in rounds, one iteration of each
// commit a round: each commit exported (or named to the agent's clone) and resolved once
// (Prepare), then the rounds run interleaved (A B B A) or, once SideBySide accepted the scenario,
// side by side, every commit of the round at once in a position of its own that the commits take
// in turn. crank bisect measures its steps with it; crank compare --base --head its two refs.
type Bench struct {
	c   *runner.Command
	who string // the command, the prefix of the lines it writes: "bisect"
	src sourceOf
	ex  runner.Executor // the controller the rounds run on (Use)
	tmp string
	// want is the figure asked for (--metric: the service may be ""); services and metric the
	// figure judged, once a commit is prepared (the scenario's headline unless want says).
	want     threshold.Threshold
	services []string
	metric   string
	// side is the ports and loads side by side (nil: one commit after the other); positions is
	// how many commits a round runs side by side at most.
	side      *together
	positions int
}

// NewBench prepares the command's scenario (runner.Prepare: resolved, its thresholds checked),
// finds the service whose source is a git repository (service, or the first with a source) and
// checks the figure: who names the command in errors and lines.
func NewBench(ctx context.Context, c *runner.Command, who, service string, metric threshold.Threshold) (*Bench, *config.Resolved, error) {
	prepared, err := runner.Prepare(ctx, c.Env, c.Plan)
	if err != nil {
		return nil, nil, err
	}
	resolved := prepared.Resolved
	src, err := Flags{Service: service}.source(ctx, resolved)
	if err != nil {
		return nil, nil, err
	}
	if err := runner.CheckThresholdMetrics(io.Discard, []threshold.Threshold{metric}, resolved, nil); err != nil {
		return nil, nil, err
	}
	return &Bench{c: c, who: who, src: src, tmp: c.Getenv("TMPDIR"), want: metric, positions: 1}, resolved, nil
}

// SideBySide makes the rounds run up to positions commits at once, each on serverPort plus its
// position with its own load, or says why the scenario cannot (the rounds stay interleaved).
func (b *Bench) SideBySide(r *config.Resolved, positions int) error {
	t, err := sideBySide(r, b.src.service, b.want.Metric, positions)
	if err != nil {
		return err
	}
	b.side, b.positions = &t, positions
	return nil
}

// Together says whether the rounds run side by side; Ports the ports the copies take then.
func (b *Bench) Together() bool { return b.side != nil }

// Ports are the first and last port a round's copies listen on side by side (0, 0 otherwise).
func (b *Bench) Ports() (first, last int) {
	if b.side == nil {
		return 0, 0
	}
	return b.side.port, b.side.port + b.positions - 1
}

// OpenLoads are the loads with no fixed rate side by side: the copies' loads compete.
func (b *Bench) OpenLoads() []string {
	if b.side == nil {
		return nil
	}
	return b.side.open
}

// Service is the service whose source the commits are; Repo its repository.
func (b *Bench) Service() string { return b.src.service }

// Repo is the repository the commits come from.
func (b *Bench) Repo() Repo { return b.src.repo }

// Remote says whether the agent clones the repository (source.repository) rather than crank
// exporting each commit of a local work tree.
func (b *Bench) Remote() bool { return b.src.remote }

// Use gives the bench the executor its rounds run on: the controller (the caller closes it).
func (b *Bench) Use(ex runner.Executor) { b.ex = ex }

// Prepare exports and resolves a commit once for all its rounds (Release removes its folder).
func (b *Bench) Prepare(ctx context.Context, c Commit) (*CommitRun, error) { return b.prepare(ctx, c) }

// Round runs round r (from 0) of the commits: side by side, one run of every commit's copy at
// once, each in its position of the round (Position); otherwise one iteration of each in turn,
// in the round's order (as given, then reversed: A B B A). The first commit that fails is
// returned with its error.
func (b *Bench) Round(ctx context.Context, r int, crs ...*CommitRun) (*CommitRun, error) {
	if b.side != nil && len(crs) > 1 {
		return b.roundTogether(ctx, crs, r)
	}
	for _, cr := range rnd.Ordered(crs, r) {
		if err := b.once(ctx, cr); err != nil {
			return cr, err
		}
	}
	return nil, nil
}

// Figure is the figure judged, as the results name it: the services and the measurement.
func (b *Bench) Figure() ([]string, string) { return b.services, b.metric }

// Values are the commit's figure, an iteration (a round) each, as measured.
func (b *Bench) Values(cr *CommitRun) []float64 {
	return runner.ResultValues(cr.acc, b.services, b.metric)
}

// Commit is the commit measured.
func (cr *CommitRun) Commit() Commit { return cr.c }

// Result is the commit's iterations so far (nil before the first).
func (cr *CommitRun) Result() *results.Result { return cr.acc }

// Reruns counts the commit's iterations run again because the machine was disturbed (machine-busy
// or steal: rounds.Disturbance).
func (cr *CommitRun) Reruns() int { return cr.rerun }

// Stolen is the steal during the commit's latest iteration, kept though the hypervisor still took
// StealShare of the machine once it was run again ("" when it did not).
func (cr *CommitRun) Stolen() string { return cr.stolen }

// OfSource makes a figure asked for without a service (--metric NAME) the source service's: crank
// compare --base --head judges the compared application's own figure (crank bisect, the
// scenario's headline service's).
func (b *Bench) OfSource() {
	if b.want.Service == "" {
		b.want.Service = b.src.service
	}
}
