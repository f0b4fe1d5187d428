// Package duet is crank compare --base REF --head REF: a pull request's base and head measured by
// crank itself in paired rounds (side by side, both at once, when the scenario can run twice at
// once: the duet method of Bulej et al. 2020; interleaved A B B A otherwise, Abedi and Brecht's
// randomized interleaved trials) and judged round by round, the positions' own costs taken out,
// by crank compare's paired test and verdict rules, with the power of the run stated and a
// sequential plan that stops early when the answer is clear (docs/GATES.md).
//
// The commits are measured by internal/bisect's Bench (exported, resolved, prepared, run in
// rounds); this package holds the plan of looks, the statistics and the command.
package duet

import (
	"fmt"
	"time"
)

// Defaults of the plan.
const (
	// DefaultMaxRounds is the most rounds a gate runs; DefaultLimit the most time it takes.
	DefaultMaxRounds = 40
	DefaultLimit     = 10 * time.Minute
	// DefaultMinRounds is the round of the first look: with fewer, Student's t at the split alpha
	// (4 degrees of freedom at 6 rounds, one spent on the positions) is too wide to decide anything
	// but a large change.
	DefaultMinRounds = 6
	// DefaultLooks is how many times at most the gate looks at its rounds (below).
	DefaultLooks = 4
)

// Plan is when the gate looks at its rounds and at what level.
//
// Peeking: a gate that tests after every round and stops at the first significant answer is
// wrong far more often than its alpha says (a null run of 40 rounds looked at after each from the
// 3rd, at 5 %, was called significant in 3 gates of 10 here; TestPeekingAfterEveryRoundInflates
// measures it). So the gate looks only at Looks points: the first after MinRounds, the last at
// MaxRounds, the others evenly between them, and each look tests at Alpha/Looks (Bonferroni).
// Chosen over Pocock's or O'Brien-Fleming's boundaries because the union bound holds whatever
// the looks' spacing and whatever the degrees of freedom (Student's t at a few rounds, where the
// group-sequential constants assume normal statistics), and because a look forced early by the
// time budget (--limit) then costs nothing: it is one of the Looks, each spending its Alpha/Looks,
// and after it the gate stops. The price, against Pocock's constant at 4 looks, is a critical
// value of 2.50 instead of 2.36 (normal scale): about 12 % more rounds for the same power.
type Plan struct {
	MinRounds, MaxRounds, Looks int
	// Alpha is the gate's significance level in all (its intervals are at 1 - Alpha/Looks).
	Alpha float64
	// Threshold is crank compare's --threshold: the smallest relative change that counts.
	Threshold float64
	// Limit is the time budget: no round starts that would likely end past it.
	Limit time.Duration
}

// DefaultPlan is the plan with every default, at crank compare's threshold and alpha.
func DefaultPlan(threshold, alpha float64) Plan {
	return Plan{MinRounds: DefaultMinRounds, MaxRounds: DefaultMaxRounds, Looks: DefaultLooks,
		Alpha: alpha, Threshold: threshold, Limit: DefaultLimit}
}

// Check says what is wrong with the plan, naming the flag.
func (p Plan) Check() error {
	switch {
	case p.MinRounds < 3:
		return fmt.Errorf("the first look needs 3 rounds at least, not %d", p.MinRounds)
	case p.MaxRounds < p.MinRounds:
		return fmt.Errorf("--max-rounds %d: at least %d (the first look)", p.MaxRounds, p.MinRounds)
	case p.Looks < 1:
		return fmt.Errorf("looks %d: at least 1", p.Looks)
	case !(p.Alpha > 0 && p.Alpha < 1):
		return fmt.Errorf("--alpha %g: want a level in (0, 1)", p.Alpha)
	case !(p.Threshold >= 0):
		return fmt.Errorf("--threshold %g: want 0 or more", p.Threshold)
	case p.Limit <= 0:
		return fmt.Errorf("--limit %s: want a duration above 0 (10m)", p.Limit)
	}
	return nil
}

// LookAlpha is the level each look tests at: Alpha split evenly between the looks.
func (p Plan) LookAlpha() float64 { return p.Alpha / float64(p.Looks) }

// Schedule is the rounds after which the gate looks: MinRounds, MaxRounds, and evenly between
// them, at most Looks in all (fewer when there are fewer rounds than looks between them).
func (p Plan) Schedule() []int {
	k := min(p.Looks, p.MaxRounds-p.MinRounds+1)
	if k <= 1 {
		return []int{p.MaxRounds}
	}
	out := make([]int, 0, k)
	span := float64(p.MaxRounds - p.MinRounds)
	for i := range k {
		r := p.MinRounds + int(span*float64(i)/float64(k-1)+0.5)
		if len(out) == 0 || r > out[len(out)-1] {
			out = append(out, r)
		}
	}
	return out
}
