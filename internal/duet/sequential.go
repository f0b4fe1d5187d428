package duet

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/crankshaft/crankshaft/internal/gate"
)

// Why a gate stopped.
const (
	StopDecided   = "decided"    // a look settled it
	StopMaxRounds = "max-rounds" // the last planned look, at --max-rounds
	StopLimit     = "limit"      // the time budget would be passed by another round
)

// RoundFunc measures round r (from 0) of both sides and gives each one's figure: base in
// position Position(0, r, 2), head in the other (side by side, the port and start order; one
// after the other, which runs first: A B, then B A). A round measured under steal even when run
// again is an error *Disturbed: it is not counted, and round r is measured again.
type RoundFunc func(ctx context.Context, r int) (base, head float64, err error)

// Disturbed is a round measured while the hypervisor took the machine's CPU (steal: rounds.
// Disturbance), even once run again: its figures may be the host's as much as the sides', so no
// look counts it. In make measure of 2026-12-01, the one gate of 20 that called a 2 % regression
// "improved" (-1.22 % [-2.24, -0.19]) was the one whose rounds were run again for steal, 40 s
// against 18-24 s for the others.
type Disturbed struct{ Why string }

func (d *Disturbed) Error() string { return "the machine was disturbed (" + d.Why + ")" }

// Sequence is a gate's rounds and looks: Run measures rounds (Round) until a look of the plan
// decides, the plan's last look, or the time budget.
type Sequence struct {
	Plan      Plan
	Direction gate.Direction
	Round     RoundFunc
	// Now is the clock the budget is read on (time.Now when nil).
	Now func() time.Time
	// Measured and Looked, when set, hear of each round and each look as they come.
	Measured func(r int, base, head float64)
	Looked   func(k int, l Look)
	// Dropped, when set, hears of each round not counted (Disturbed), r the round measured again.
	Dropped func(r int, why string)
}

// Outcome is what a gate found: every look taken (the last decides), its rounds, why it stopped.
type Outcome struct {
	Looks   []Look
	Base    []float64
	Head    []float64
	Stopped string
	// Elapsed is the time the rounds took.
	Elapsed time.Duration
	// Dropped counts the rounds measured and not counted (Disturbed).
	Dropped int
}

// Final is the last look: the gate's answer (the zero Look when none was taken).
func (o Outcome) Final() Look {
	if len(o.Looks) == 0 {
		return Look{}
	}
	return o.Looks[len(o.Looks)-1]
}

// Verdict is the gate's verdict: the last look's (inconclusive when none was taken).
func (o Outcome) Verdict() gate.Verdict {
	if len(o.Looks) == 0 {
		return gate.VerdictInconclusive
	}
	return o.Final().Verdict()
}

// Run measures rounds and looks at them as the plan says. It stops at the first look that
// decides; at the last planned look; or before a round that would likely end past the time
// budget (at the pace of the rounds so far), looking once more then, when it has MinRounds
// rounds and did not just look. Every look tests at the plan's LookAlpha, and a gate takes at
// most Looks looks, so the chance that any look calls a change that is not there stays within
// Alpha (Plan). A round measured under steal (Disturbed) is not counted and is
// measured again; it counts towards MaxRounds all the same (so --max-rounds bounds the time), and
// when MaxRounds is reached with rounds dropped, the gate looks once more at what it has, as at the
// time budget. Any other error of a round ends it, with the outcome so far.
func (s Sequence) Run(ctx context.Context) (Outcome, error) {
	if err := s.Plan.Check(); err != nil {
		return Outcome{}, err
	}
	now := s.Now
	if now == nil {
		now = time.Now
	}
	schedule := s.Plan.Schedule()
	var o Outcome
	start := now()
	for tried := 0; tried < s.Plan.MaxRounds; tried++ {
		r := len(o.Base) // the round counted next: its positions
		if tried > 0 && late(now().Sub(start), tried, s.Plan.Limit) {
			o.Stopped = StopLimit
			s.lookLast(&o, schedule)
			break
		}
		b, h, err := s.Round(ctx, r)
		o.Elapsed = now().Sub(start)
		if d := (*Disturbed)(nil); errors.As(err, &d) {
			o.Dropped++
			if s.Dropped != nil {
				s.Dropped(r, d.Why)
			}
			continue
		}
		if err != nil {
			return o, fmt.Errorf("round %d: %w", r+1, err)
		}
		o.Base, o.Head = append(o.Base, b), append(o.Head, h)
		if s.Measured != nil {
			s.Measured(r, b, h)
		}
		if !slices.Contains(schedule, r+1) {
			continue
		}
		if s.look(&o).Decided() {
			o.Stopped = StopDecided
			break
		}
	}
	if o.Stopped == "" {
		o.Stopped = StopMaxRounds
		s.lookLast(&o, schedule)
	}
	return o, nil
}

// lookLast looks once more at a gate that stops before its last planned look, when it has
// MinRounds rounds and did not just look.
func (s Sequence) lookLast(o *Outcome, schedule []int) {
	if r := len(o.Base); r >= s.Plan.MinRounds && !slices.Contains(schedule, r) {
		s.look(o)
	}
}

// look judges the rounds so far at the plan's look level and records it.
func (s Sequence) look(o *Outcome) Look {
	l := Judge(s.Direction, o.Base, o.Head, s.Plan.Threshold, s.Plan.LookAlpha())
	o.Looks = append(o.Looks, l)
	if s.Looked != nil {
		s.Looked(len(o.Looks), l)
	}
	return l
}

// late says whether another round, at the mean pace of the done rounds so far, would end past
// the limit.
func late(elapsed time.Duration, done int, limit time.Duration) bool {
	return elapsed+elapsed/time.Duration(done) > limit
}
