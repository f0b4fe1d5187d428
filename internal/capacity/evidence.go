package capacity

import (
	"fmt"
	"github.com/crankshaft/crankshaft/internal/rounds"
	"math"
	"strings"
)

// MaxMeasures is the most times the search measures one rate: once, and at most twice again.
const MaxMeasures = 3

// standing is what a rate's measures say of it.
type standing int

const (
	rateUntried standing = iota
	ratePassed
	rateFailed
	// rateDisturbed: every measure failed, each on a disturbed machine: a failure that may be the
	// machine's. The search goes below it as below a failure, but cannot answer on it.
	rateDisturbed
	// rateMixed: as many measures passed as failed on a quiet machine.
	rateMixed
)

// standing decides a rate by its measures: the passes against the failures on a quiet machine (a
// failure on a disturbed machine is not counted against a pass), the majority deciding.
func (s *searcher) standing(rate float64) standing {
	pass, fail := s.counts(rate)
	switch {
	case len(s.byRate[rate]) == 0:
		return rateUntried
	case pass > fail:
		return ratePassed
	case fail > pass:
		return rateFailed
	case pass == 0:
		return rateDisturbed
	}
	return rateMixed
}

// counts are a rate's passes and its failures on a quiet machine.
func (s *searcher) counts(rate float64) (pass, fail int) {
	for _, i := range s.byRate[rate] {
		switch st := s.r.Steps[i]; {
		case st.Pass:
			pass++
		case !st.Disturbed():
			fail++
		}
	}
	return pass, fail
}

// again says why the rate just measured is measured again at once ("" when it is not; the step's
// own row and line give its rate and the disturbance): its last
// measure failed on a disturbed machine, or it is the rate's first failure on a quiet machine, on
// the SLOs alone while the generator kept up (with Options.Confirm). A rate is measured at most
// MaxMeasures times.
func (s *searcher) again(rate float64) string {
	idx := s.byRate[rate]
	if len(idx) == 0 {
		return ""
	}
	last := s.r.Steps[idx[len(idx)-1]]
	pass, fail := s.counts(rate)
	switch {
	case last.Pass:
		return ""
	case rounds.Again(len(idx), MaxMeasures, last.Disturbed()):
		return "it failed on a disturbed machine"
	case len(idx) < MaxMeasures && s.o.Confirm && !last.FellBehind && pass == 0 && fail == 1:
		return "it failed on the SLOs alone while the generator kept up, which one noisy second can cause"
	}
	return ""
}

// contradiction finds the lowest rate that failed (or whose measures disagree) at or below the
// highest that passed (or whose measures disagree): a search that contradicts itself, with both
// ends. ok is false when the rates' standings are monotonic.
func (s *searcher) contradiction() (low, high float64, ok bool) {
	low = math.Inf(1)
	for rate := range s.byRate {
		switch s.standing(rate) {
		case rateFailed:
			low = min(low, rate)
		case ratePassed:
			high = max(high, rate)
		case rateMixed:
			low, high = min(low, rate), max(high, rate)
		}
	}
	return low, high, low <= high
}

func contradictionText(low, high float64) string {
	if low == high {
		return fmt.Sprintf("%s both passed and failed", Rate(low))
	}
	return fmt.Sprintf("%s failed below %s, which passed", Rate(low), Rate(high))
}

// unsettledText says the contradiction that stayed after each end was measured MaxMeasures times.
func (s *searcher) unsettledText(low, high float64) string {
	tally := func(rate float64) string {
		pass, fail := s.counts(rate)
		n := len(s.byRate[rate])
		text := fmt.Sprintf("%s passed %d and failed %d of %d measures", Rate(rate), pass, n-pass, n)
		if d := n - pass - fail; d > 0 {
			text += fmt.Sprintf(" (%d on a disturbed machine)", d)
		}
		return text
	}
	parts := []string{tally(low)}
	if high != low {
		parts = append(parts, tally(high))
	}
	return "the steps contradict each other after measuring again: " + contradictionText(low, high) + ": " + strings.Join(parts, "; ")
}

// bracket is the highest rate that passed and the lowest above it that failed (or failed only on
// a disturbed machine); 0 for an end not found yet.
func (s *searcher) bracket() (lo, hi float64) {
	for rate := range s.byRate {
		if s.standing(rate) == ratePassed {
			lo = max(lo, rate)
		}
	}
	for rate := range s.byRate {
		if st := s.standing(rate); (st == rateFailed || st == rateDisturbed) && rate > lo && (hi == 0 || rate < hi) {
			hi = rate
		}
	}
	return lo, hi
}
