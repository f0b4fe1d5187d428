package duet

import (
	"context"
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
// after the other, which runs first: A B, then B A).
type RoundFunc func(ctx context.Context, r int) (base, head float64, err error)

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
}

// Outcome is what a gate found: every look taken (the last decides), its rounds, why it stopped.
type Outcome struct {
	Looks   []Look
	Base    []float64
	Head    []float64
	Stopped string
	// Elapsed is the time the rounds took.
	Elapsed time.Duration
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
// Alpha (Plan). A round's error ends it, with the outcome so far.
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
	for r := 0; r < s.Plan.MaxRounds; r++ {
		if r > 0 && late(now().Sub(start), r, s.Plan.Limit) {
			o.Stopped = StopLimit
			if r >= s.Plan.MinRounds && !slices.Contains(schedule, r) {
				s.look(&o)
			}
			break
		}
		b, h, err := s.Round(ctx, r)
		o.Elapsed = now().Sub(start)
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
		if r+1 == s.Plan.MaxRounds {
			o.Stopped = StopMaxRounds
		}
	}
	return o, nil
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
