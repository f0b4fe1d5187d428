// Package capacity finds the highest request rate a server sustains within its service level
// objectives (crank capacity): open-loop steps of the load's rate, doubling from a start rate
// until a step fails, then bisecting between the highest passing and the lowest failing rate
// until they are within the precision asked, each step judged on the platform's own figures (the
// SLOs, and whether the generator kept up with the rate asked). Nighthawk's adaptive load
// controller searches the same way; the knee is then explained with the run's verdict.
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
	// cause): the rate fails only when the repeat fails too. A step that fell behind is not
	// repeated: the server could not do the rate, unless the machine's hypervisor took StealShare
	// of its CPU meanwhile (Step.Stolen): then the host may have, and it is measured again too.
	Confirm bool
}

// DefaultOptions are crank capacity's defaults.
func DefaultOptions() Options {
	return Options{Start: 500, MinRate: 10, Precision: 0.05, MaxSteps: 16, MaxTime: 10 * time.Minute, Confirm: true}
}

// Measure runs one step at rate and says how it went. Its error ends the search.
type Measure func(ctx context.Context, n int, rate float64) (Step, error)

// ErrUnmet is the search's answer when even MinRate fails the SLOs.
var ErrUnmet = errors.New("the service level objectives are not met even at the lowest rate")

// Search steps the rate as the package says and returns every step, with the capacity (the highest
// passing rate) and the first failing rate above it. It stops at MaxSteps or MaxTime, saying so
// in Result.Stopped; a cancelled ctx stops it with what it has.
func Search(ctx context.Context, o Options, measure Measure) (Result, error) {
	var r Result
	start := time.Now()
	lo, hi := 0.0, 0.0 // highest passing, lowest failing (0: none yet)
	rate := o.Start
	for n := 1; ; n++ {
		if n > o.MaxSteps {
			r.Stopped = fmt.Sprintf("--max-steps %d reached", o.MaxSteps)
			break
		}
		if n > 1 && time.Since(start) > o.MaxTime {
			r.Stopped = fmt.Sprintf("--max-time %s reached", o.MaxTime)
			break
		}
		s, err := measure(ctx, n, rate)
		if err != nil {
			r.finish(lo, hi)
			return r, err
		}
		if !s.Pass && (!s.FellBehind || s.Stolen) && o.Confirm && n < o.MaxSteps {
			s.Repeated = true
			r.Steps = append(r.Steps, s)
			n++
			if s, err = measure(ctx, n, rate); err != nil {
				r.finish(lo, hi)
				return r, err
			}
			s.Repeat = true
		}
		r.Steps = append(r.Steps, s)
		if s.Pass {
			lo = rate
		} else {
			hi = rate
		}
		switch {
		case lo == 0 && rate/2 < o.MinRate:
			r.finish(lo, hi)
			return r, fmt.Errorf("%w (%s req/s)", ErrUnmet, rateText(rate))
		case lo == 0:
			rate /= 2
		case hi == 0:
			rate *= 2
		case (hi-lo)/lo <= o.Precision:
			r.finish(lo, hi)
			return r, nil
		default:
			rate = (lo + hi) / 2
		}
	}
	r.finish(lo, hi)
	return r, nil
}

// finish records the answer: the capacity, and the step that failed just above it.
func (r *Result) finish(lo, hi float64) {
	r.Rate = lo
	r.FailedAt = hi
	for i := range r.Steps {
		if s := &r.Steps[i]; !s.Pass && s.Asked == hi {
			r.FailedSLO = s.Failed
			r.knee = i
		}
	}
}

func rateText(r float64) string { return fmt.Sprintf("%.0f", r) }
