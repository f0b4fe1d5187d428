package bisect

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/crankshaft/crankshaft/internal/results"
)

// Verdicts of a step.
const (
	Good       = "good"
	Bad        = "bad"
	Skip       = "skip" // the commit did not build or run: left out, as git bisect skip
	CannotTell = "cannot tell"
)

// Step is one commit benchmarked: its figure (mean ± the 95 % interval's half-width over its
// iterations) and the verdict against the good baseline.
type Step struct {
	Commit     Commit  `json:"commit"`
	Mean       float64 `json:"mean"`
	HalfWidth  float64 `json:"halfWidth"`
	Iterations int     `json:"iterations"`
	// Change is Mean over the good end's mean measured in the same rounds, minus 1 (for the bad
	// end, the baseline's); PValue the test's when one was made.
	Change float64 `json:"change"`
	// GoodMean is the good end's mean over the rounds this commit ran beside it: what Change is
	// measured from (0 in files written before it was recorded).
	GoodMean float64 `json:"goodMean,omitempty"`
	// Rerun counts the commit's iterations run again because the machine was disturbed while they
	// ran (rounds.Disturbance: machine-busy, or the hypervisor took StealShare or more of its CPU
	// time); not in Iterations.
	Rerun int `json:"rerun,omitempty"`
	// Dropped counts the rounds of the commit's measurement not counted: still under steal once run
	// again (the same rule as crank compare --base --head's); not in Iterations either, and none
	// of their figures in Mean, Change or the verdict.
	Dropped int     `json:"dropped,omitempty"`
	PValue  float64 `json:"pValue,omitempty"`
	// Way and WayHalfWidth place a commit measured beside both ends (Place): where it lies as a
	// share of the way from good (0) to bad (1), and its PlaceLevel interval's half-width; both 0
	// for the ends and in files written before.
	Way          float64 `json:"way,omitempty"`
	WayHalfWidth float64 `json:"wayHalfWidth,omitempty"`
	Verdict      string  `json:"verdict"`
	Note         string  `json:"note,omitempty"`
	// Diagnosis and Thresholds are internal/runner's judgement of the commit's latest iteration, as
	// a run's result has them (its verdict first, with its figures; every threshold checked): side
	// by side, the diagnosis is the round's, whose machine every commit shared. They inform: only
	// machine-busy (run again) and error-bound or unserved (ErrUnjudged) change the search.
	Diagnosis  []results.Diagnostic     `json:"diagnosis,omitempty"`
	Thresholds []results.ThresholdCheck `json:"thresholds,omitempty"`
	// Position is the commit's place in the history: how many commits after good (0: the good
	// end; the bad end is the last).
	Position int `json:"position,omitempty"`
}

// Result is the search's answer, written at the root of the JSON as "bisect".
type Result struct {
	Metric   string `json:"metric"`
	Good     Commit `json:"good"`
	Bad      Commit `json:"bad"`
	Baseline Step   `json:"baseline"`
	// BadEnd is the bad commit measured first: when it is not worse than good, NoneWorse.
	BadEnd Step `json:"badEnd"`
	// FirstBad is the first commit worse than good ("" when none is).
	FirstBad        string `json:"firstBad"`
	FirstBadSubject string `json:"firstBadSubject,omitempty"`
	NoneWorse       bool   `json:"noneWorse,omitempty"`
	// Candidates is set when skipped commits leave several possible first bad commits.
	Candidates []Commit `json:"candidates,omitempty"`
	Steps      []Step   `json:"steps"`
	// Stopped says why the search ended without an answer (it cannot tell, or it failed).
	Stopped string `json:"stopped,omitempty"`
	// Dropped counts the rounds not counted, over the search: still under steal once run again.
	Dropped int `json:"dropped,omitempty"`
	// SideBySide: the commits of a round ran at the same time (crank bisect --side-by-side).
	SideBySide bool `json:"sideBySide,omitempty"`
	// Grew is, when the service records profiles, what grew from the last good commit to the
	// first bad one in each of its CPU profiles, or why it was not compared (Growths).
	Grew []Growth `json:"grew,omitempty"`
}

// Probe is what a search asks a Judge to measure: the n-th step of about About, the commit, and
// how many times it was measured before (a marginal step next to the first bad commit is measured
// again, up to Confirmations more times).
type Probe struct {
	N, About int
	Commit   Commit
	Again    int
}

// Confirmations is the most times a commit is measured again: once, and a third time when the
// second measurement turns the verdict.
const Confirmations = 2

// Judge benchmarks one commit against the baseline. An error ends the search (a failed build is a
// Skip step, not an error).
type Judge func(ctx context.Context, p Probe) (Step, error)

// ErrCannotTell ends a search whose step could not be told good or bad within the iterations.
var ErrCannotTell = errors.New("cannot tell whether a commit is good or bad")

// Search bisects commits (the range after good, up to bad, oldest first): bad is taken as bad
// until the end, where it is benchmarked if no step did, so that a range where nothing got worse
// ends with NoneWorse rather than blaming bad.
func Search(ctx context.Context, commits []Commit, judge Judge) (Result, error) {
	var r Result
	if len(commits) == 0 {
		return r, errors.New("no commit after --good up to --bad")
	}
	lo, hi := -1, len(commits)-1
	measured := map[int]Step{} // each commit's latest step: its verdict is the search's
	times := map[int]int{}     // how many times each commit was measured
	about := Steps(len(commits))
	n := 0
	step := func(i int) (string, error) {
		n++
		about = max(about, n) // re-measures and confirmations go past the halvings' count ("step 4 of about 3")
		s, err := judge(ctx, Probe{N: n, About: about, Commit: commits[i], Again: times[i]})
		times[i]++
		if err != nil {
			return "", err
		}
		s.Position = i + 1
		r.Steps = append(r.Steps, s)
		measured[i] = s
		if s.Verdict == CannotTell {
			ask := "ask a finer --precision or more --max-iterations"
			switch need := RoundsToDecide(s.WayHalfWidth, s.Iterations); {
			case need > s.Iterations:
				ask = fmt.Sprintf("at the spread of these rounds, a commit at either end is told after about %d (4 times in 5): ask --max-iterations %d or more", need, need)
			case need > 0: // enough rounds for a commit at an end: this one is not at either
				ask = fmt.Sprintf("these rounds would have told a commit at either end (about %d needed); this one lies between them, at %.2f ± %.2f of the way: the change may be spread over several commits",
					need, s.Way, s.WayHalfWidth)
			}
			return "", cannotTell(s.Commit.Short()+" ("+s.Commit.Subject+")", s, ask)
		}
		return s.Verdict, nil
	}
	for {
		for hi-lo > 1 {
			mid, ok := pick(lo, hi, measured)
			if !ok { // every commit between is skipped
				break
			}
			v, err := step(mid)
			if err != nil {
				return r, err
			}
			switch v {
			case Bad:
				hi = mid
			case Good:
				lo = mid
			}
		}
		i, v, err := confirm(lo, hi, measured, times, step)
		if err != nil {
			return r, err
		}
		if i < 0 || v == "" {
			break
		}
		// i's verdict turned: the boundary moves to the nearest commit measured the other way
		if v == Bad {
			hi, lo = i, nearest(i, -1, -1, measured, Good)
		} else {
			lo, hi = i, nearest(i, len(commits), len(commits)-1, measured, Bad)
		}
	}
	if _, done := measured[hi]; !done {
		v, err := step(hi)
		if err != nil {
			return r, err
		}
		if v == Good {
			r.NoneWorse = true
			return r, nil
		}
	}
	for i := lo + 1; i < hi; i++ { // skipped commits before the first bad one: any may be it
		if measured[i].Verdict == Skip {
			r.Candidates = append(r.Candidates, commits[i])
		}
	}
	if len(r.Candidates) > 0 {
		r.Candidates = append(r.Candidates, commits[hi])
	}
	r.FirstBad, r.FirstBadSubject = commits[hi].SHA, commits[hi].Subject
	return r, nil
}

// Marginal is how near the ends' midpoint (in shares of the way from good to bad) the interval of
// a step next to the first bad commit may come before the search measures it again: a commit
// judged on a few rounds that barely cleared the midpoint is the likeliest to be wrong, and one
// wrong step there blames the wrong commit.
const Marginal = 0.25

// confirm measures again, once each, the last good and the first bad commit whose placement was
// marginal (the ends, skipped and unplaced commits, and those measured again already, are not;
// times counts the measurements of each). When the new verdict differs from the first, a third
// measurement decides (two of three). It returns the commit whose verdict turned
// and its verdict, or -1 when none did.
func confirm(lo, hi int, measured map[int]Step, times map[int]int, step func(int) (string, error)) (int, string, error) {
	for _, i := range []int{lo, hi} {
		s, ok := measured[i]
		if !ok || times[i] > 1 || s.WayHalfWidth <= 0 || math.Abs(s.Way-0.5)-s.WayHalfWidth >= Marginal {
			continue
		}
		first := s.Verdict
		v, err := step(i)
		if err == nil && v != first {
			v, err = step(i)
		}
		if err != nil {
			return -1, "", err
		}
		if v != first && (v == Good || v == Bad) {
			return i, v, nil
		}
	}
	return -1, "", nil
}

// nearest is the commit nearest i in the direction of stop (exclusive) measured as want, or
// otherwise.
func nearest(i, stop, otherwise int, measured map[int]Step, want string) int {
	d := 1
	if stop < i {
		d = -1
	}
	for j := i + d; j != stop; j += d {
		if measured[j].Verdict == want {
			return j
		}
	}
	return otherwise
}

// pick is the unmeasured commit between lo and hi nearest their middle.
func pick(lo, hi int, measured map[int]Step) (int, bool) {
	mid := (lo + hi) / 2
	for d := 0; d <= hi-lo; d++ {
		for _, i := range []int{mid - d, mid + d} {
			if i > lo && i < hi {
				if _, done := measured[i]; !done {
					return i, true
				}
			}
		}
	}
	return 0, false
}

// Steps is about how many commits a search over n commits benchmarks: log2(n), rounded up.
func Steps(n int) int {
	k := 0
	for 1<<k < n {
		k++
	}
	return k
}
