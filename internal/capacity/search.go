// Package capacity finds the highest request rate a server sustains within its service level
// objectives (crank capacity): open-loop steps of the load's rate, doubling from a start rate
// until a step fails, then bisecting between the highest passing and the lowest failing rate
// until they are within the precision asked, each step judged on the platform's own figures (the
// SLOs, and whether the generator kept up with the rate asked). Nighthawk's adaptive load
// controller searches the same way; the knee is then explained with the run's verdict.
//
// The search does not answer on noise: a failure on a disturbed machine, or on the SLOs alone, is
// measured again; a rate whose measures disagree, or that failed below one that passed, is
// measured again until its measures agree (at most MaxMeasures each); and a search that cannot
// settle says so (Result.Inconclusive) with its bracket and what would tell.
package capacity

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Options bound the search.
type Options struct {
	// Start is the first rate tried (req/s); the search doubles from it, or halves below it
	// down to MinRate when it fails.
	Start float64
	// MinRate is the lowest rate tried before saying the SLOs cannot be met.
	MinRate float64
	// Precision: the search ends once the lowest failing rate is within this share of the highest
	// passing one (0.05: 5 %).
	Precision float64
	MaxSteps  int
	MaxTime   time.Duration
	// Confirm measures a step again when it failed only on the SLOs while the generator kept up
	// with the rate (a tail-latency or error failure below saturation, which one noisy second can
	// cause). A step that fell behind on a quiet machine is not measured again: the server could
	// not do the rate. A failure on a disturbed machine (Step.Disturbed) is measured again
	// whatever this says.
	Confirm bool
}

// DefaultOptions are crank capacity's defaults.
func DefaultOptions() Options {
	return Options{Start: 500, MinRate: 10, Precision: 0.05, MaxSteps: 16, MaxTime: 10 * time.Minute, Confirm: true}
}

// Ask is one step the search asks for: its number, its rate, and, when the rate was measured
// before, why it is measured again.
type Ask struct {
	N     int
	Rate  float64
	Again string
}

// Measure runs one step and says how it went. Its error ends the search.
type Measure func(ctx context.Context, a Ask) (Step, error)

// ErrUnmet is the search's answer when even MinRate fails the SLOs on a quiet machine.
var ErrUnmet = errors.New("the service level objectives are not met even at the lowest rate")

// Search steps the rate as the package says and returns every step, with the capacity (the highest
// passing rate) and the first failing rate above it. It stops at MaxSteps or MaxTime, saying so
// in Result.Stopped; a cancelled ctx stops it with what it has. A search that cannot settle
// returns no error and says why in Result.Inconclusive.
func Search(ctx context.Context, o Options, measure Measure) (Result, error) {
	s := &searcher{o: o, measure: measure, byRate: map[float64][]int{}, start: time.Now()}
	ask := Ask{Rate: o.Start}
	for {
		if stop := s.bounds(); stop != "" {
			s.r.Stopped = stop
			return s.finish(ended{})
		}
		if err := s.step(ctx, ask); err != nil {
			res, _ := s.finish(ended{})
			return res, err
		}
		var end ended
		if ask, end = s.next(ask.Rate); end.done {
			return s.finish(end)
		}
	}
}

// searcher is one search's state: its steps, and each rate's steps by index.
type searcher struct {
	o       Options
	measure Measure
	r       Result
	byRate  map[float64][]int
	start   time.Time
}

// ended is how the search ended: converged (or unmet), or unsettled with why.
type ended struct {
	done, unmet bool
	unsettled   string
}

// bounds says why the search must stop before its next step ("" when it need not).
func (s *searcher) bounds() string {
	n := len(s.r.Steps) + 1
	switch {
	case n > s.o.MaxSteps:
		return fmt.Sprintf("--max-steps %d reached", s.o.MaxSteps)
	case n > 1 && time.Since(s.start) > s.o.MaxTime:
		return fmt.Sprintf("--max-time %s reached", s.o.MaxTime)
	}
	return ""
}

// step measures one rate and records it, marking the rate's earlier step as measured again.
func (s *searcher) step(ctx context.Context, a Ask) error {
	a.N = len(s.r.Steps) + 1
	st, err := s.measure(ctx, a)
	if err != nil {
		return err
	}
	if prev := s.byRate[a.Rate]; len(prev) > 0 {
		s.r.Steps[prev[len(prev)-1]].Repeated = true
		st.Repeat, st.Again = true, a.Again
	}
	s.byRate[a.Rate] = append(s.byRate[a.Rate], len(s.r.Steps))
	s.r.Steps = append(s.r.Steps, st)
	return nil
}

// next is the step after one at rate: the same rate again when its failure needs it, an end of
// a contradiction measured again, else the search's next rate; or the search's end.
func (s *searcher) next(rate float64) (Ask, ended) {
	if why := s.again(rate); why != "" {
		return Ask{Rate: rate, Again: why}, ended{}
	}
	if low, high, ok := s.contradiction(); ok {
		for _, r := range []float64{low, high} {
			if len(s.byRate[r]) < MaxMeasures {
				return Ask{Rate: r, Again: contradictionText(low, high)}, ended{}
			}
		}
		return Ask{}, ended{done: true, unsettled: s.unsettledText(low, high)}
	}
	lo, hi := s.bracket()
	switch {
	case lo == 0 && hi/2 < s.o.MinRate:
		return Ask{}, ended{done: true, unmet: true}
	case lo == 0:
		return Ask{Rate: hi / 2}, ended{}
	case hi == 0:
		return Ask{Rate: lo * 2}, ended{}
	case s.converged(lo, hi):
		return Ask{}, ended{done: true}
	}
	return Ask{Rate: (lo + hi) / 2}, ended{}
}

func (s *searcher) converged(lo, hi float64) bool {
	return lo > 0 && hi > 0 && (hi-lo)/lo <= s.o.Precision
}

// finish records the answer: the bracket, the step that failed just above the capacity, and why
// the search cannot tell when it cannot.
func (s *searcher) finish(end ended) (Result, error) {
	r := &s.r
	if low, high, ok := s.contradiction(); ok && end.unsettled == "" { // stopped before it was measured again
		end.unsettled = "the steps contradict each other: " + contradictionText(low, high)
	}
	lo, hi := s.bracket()
	r.Rate, r.FailedAt, r.FailedSLO, r.knee = lo, hi, nil, 0
	for _, i := range s.byRate[hi] {
		if st := r.Steps[i]; hi > 0 && !st.Pass {
			r.FailedSLO, r.knee = st.Failed, i
		}
	}
	switch {
	case end.unsettled != "":
		r.Inconclusive = end.unsettled
		r.WouldTell = "steadier steps: longer ones (--step-duration: a step's p99 is one sample of a noisy tail), on a quiet machine"
	case hi > 0 && s.standing(hi) == rateDisturbed:
		r.Inconclusive = fmt.Sprintf("%s failed only while the machine was disturbed (%s), so the capacity may lie above it",
			Rate(hi), r.Steps[r.knee].Disturbance())
		r.WouldTell = "a quiet machine: nothing else running beside the search (the machine-busy verdict's rule: under 20 % of a machine used outside the run, steal under 5 %)"
	case end.unmet:
		return *r, fmt.Errorf("%w (%s req/s)", ErrUnmet, rateText(hi))
	case r.Stopped != "" && !s.converged(lo, hi):
		r.Inconclusive = fmt.Sprintf("the search stopped (%s) before its bracket was within --precision %g %%", r.Stopped, 100*s.o.Precision)
		r.WouldTell = fmt.Sprintf("more steps or time (--max-steps, now %d; --max-time, now %s), or a --start-rate nearer the capacity", s.o.MaxSteps, s.o.MaxTime)
	}
	return *r, nil
}

func rateText(r float64) string { return fmt.Sprintf("%.0f", r) }
