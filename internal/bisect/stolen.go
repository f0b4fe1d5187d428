package bisect

import (
	"fmt"
	"maps"
	"strings"

	"github.com/crankshaft/crankshaft/internal/results"
	"github.com/crankshaft/crankshaft/internal/runner"
)

// A round of crank bisect whose iteration of some commit was still measured under steal once run
// again (CommitRun.Stolen: the hypervisor took rounds.Disturbance's StealShare of the machine) is
// not counted, as crank compare --base --head's gate does not count one (duet.Disturbed): its
// figures may be the host's as much as the commits', and the one gate of 20 that called a 2 %
// regression "improved" in make measure of 2026-12-01 was the one whose rounds were run again for
// steal (docs/GATES.md). Every commit of the round gives its iteration back (the placement pairs
// the commits round by round), the round is measured again in the same order or positions, and it
// counts towards --max-iterations all the same: a machine that keeps stealing ends the search with
// "cannot tell" (exit 1), never a verdict on what the host did.

// mark is a commit's iterations before a round, to go back to when the round is not counted.
type mark struct {
	cr       *CommitRun
	acc      *results.Result
	profiled int
}

// marksOf marks the commits' iterations before a round. A round adds to a commit's iterations
// (add, results.AddIteration) by setting its jobs anew and its judgement's fields, never by
// changing what they held: a copy of the result and of its map of jobs keeps them as they were.
func marksOf(crs []*CommitRun) []mark {
	ms := make([]mark, len(crs))
	for i, cr := range crs {
		ms[i] = mark{cr: cr, profiled: len(cr.profiled)}
		if cr.acc != nil {
			acc := *cr.acc
			acc.JobResults.Jobs = maps.Clone(cr.acc.JobResults.Jobs)
			ms[i].acc = &acc
		}
	}
	return ms
}

// takeBack gives the commit's iteration of the round back and counts the round not counted.
func (m mark) takeBack() {
	m.cr.acc, m.cr.profiled = m.acc, m.cr.profiled[:m.profiled]
	m.cr.dropped++
}

// stolenRound names, when the round was still under steal once run again for some commit, each
// such commit with its iteration (iteration, from 1) and the steal; "" when none was.
func stolenRound(crs []*CommitRun, iteration int) string {
	var parts []string
	for _, cr := range crs {
		if why := cr.Stolen(); why != "" {
			parts = append(parts, fmt.Sprintf("%s's iteration %d: %s", cr.c.Short(), iteration, why))
		}
	}
	return strings.Join(parts, "; ")
}

// notCounted takes the round just measured (the counted round round, from 1; the tried-th round
// run) back from every commit of it when steal marked any of its iterations (stolenRound), and
// says so; it reports whether it did.
func (b *bisector) notCounted(marks []mark, round, tried int) bool {
	crs := make([]*CommitRun, len(marks))
	for i, m := range marks {
		crs[i] = m.cr
	}
	why := stolenRound(crs, round)
	if why == "" {
		return false
	}
	for _, m := range marks {
		m.takeBack()
	}
	next := "measuring it again"
	if tried >= b.c.Plan.Run.Iterations {
		next = "no round is left to measure it again"
	}
	fmt.Fprintf(b.c.Stderr, "bisect: round %d not counted: the hypervisor still took the machine's CPU when it was run again (%s); it counts towards --max-iterations (%d of %d rounds run): %s\n",
		round, why, tried, b.c.Plan.Run.Iterations, next)
	return true
}

// tooFew says whether steal left a commit too few counted rounds to be judged on: some were not
// counted and fewer than runner.MinAutoIterations were (or than --max-iterations, when it asks
// fewer), the least on which a search judges a commit.
func (b *bisector) tooFew(cr *CommitRun) bool {
	return cr.dropped > 0 && counted(cr) < min(runner.MinAutoIterations, b.c.Plan.Run.Iterations)
}

// counted is how many iterations of the commit are counted.
func counted(cr *CommitRun) int {
	if cr.acc == nil || cr.acc.Precision == nil {
		return 0
	}
	return cr.acc.Precision.Iterations
}

// stolenStep is the step of commit c, measured as cr, when steal left it too few counted rounds
// (tooFew): cannot tell, with the figure of the rounds counted, if any.
func stolenStep(c Commit, cr *CommitRun) Step {
	s := Step{Commit: c, Verdict: CannotTell, Rerun: cr.rerun, Dropped: cr.dropped,
		Note: fmt.Sprintf("%d rounds not counted (steal), %d counted: too few to judge", cr.dropped, counted(cr))}
	if cr.acc != nil && cr.acc.Precision != nil {
		p := cr.acc.Precision
		s.Mean, s.HalfWidth, s.Iterations = p.Mean, p.HalfWidth, p.Iterations
		s.Diagnosis, s.Thresholds = cr.acc.JobResults.Diagnostics, cr.acc.Thresholds
	}
	return s
}

// cannotTell is ErrCannotTell for step s, what naming its commit, with ask, what would tell: its
// change from good is within the noise after its iterations; a step some of whose rounds were not
// counted for steal says how many, and that a machine whose host gives it its CPU would tell.
func cannotTell(what string, s Step, ask string) error {
	if s.Dropped == 0 {
		return fmt.Errorf("%w: %s is %+.1f %% from good, within the noise after %d iterations; %s",
			ErrCannotTell, what, 100*s.Change, s.Iterations, ask)
	}
	left := "none was"
	switch {
	case s.Iterations == 1:
		left = fmt.Sprintf("1 was, %+.1f %% from good", 100*s.Change)
	case s.Iterations > 1:
		left = fmt.Sprintf("%d were, %+.1f %% from good", s.Iterations, 100*s.Change)
	}
	return fmt.Errorf("%w: %s: %d of its rounds were not counted (still under steal once run again) and %s; a machine whose host gives it its CPU would tell sooner (or %s)",
		ErrCannotTell, what, s.Dropped, left, ask)
}

// dropped counts the search's rounds not counted for steal: the ends' (their rounds are the
// baseline's and the bad end's alike) and each step's.
func (r Result) dropped() int {
	n := r.BadEnd.Dropped
	for _, s := range r.Steps {
		n += s.Dropped
	}
	return n
}
