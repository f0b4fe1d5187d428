// Package rounds is how crank measures things against each other on a machine whose speed drifts:
// in rounds, each round measuring every subject once, in an order that changes from round to round
// (interleaved: A B, then B A) or side by side in slots that the subjects take in turn; a step
// measured on a disturbed machine (stolen CPU, another tenant) measured again, a bounded number of
// times (Disturbance says what disturbed means); and the figures a round gives in pairs, subject
// beside reference. crank sweep, capacity, bisect and compare --base --head, and the bench (go run
// ./bench), take their orders and their re-run rule from here.
package rounds

// Round is the order subjects 0..n-1 run in round r (from 0): as given in even rounds (the 1st,
// the 3rd...), reversed in odd ones, so that no subject always runs first or last (after the same
// one, with the machine in the same state) and a drift of the machine weighs alike on all: over
// two rounds, A B B A.
func Round(n, r int) []int {
	out := make([]int, n)
	for i := range n {
		if r%2 == 1 {
			out[i] = n - 1 - i
		} else {
			out[i] = i
		}
	}
	return out
}

// Interleaved is the run order of n subjects over rounds rounds, as subject indexes: Round(n, 0),
// then Round(n, 1), and so on.
func Interleaved(n, rounds int) []int {
	var out []int
	for r := range rounds {
		out = append(out, Round(n, r)...)
	}
	return out
}

// Ordered is the subjects in round r's order (Round).
func Ordered[T any](subjects []T, r int) []T {
	out := make([]T, 0, len(subjects))
	for _, i := range Round(len(subjects), r) {
		out = append(out, subjects[i])
	}
	return out
}

// Slot is the slot subject i takes in round r (from 0) when n subjects run side by side at once,
// each in a slot of its own (a port, a core): each slot in turn, so that a slot's own cost falls
// on every subject alike.
func Slot(i, r, n int) int { return (i + r) % n }

// Again tells whether a step measured times times so far, its last measure disturbed or not, is
// measured again: only a disturbed one, and at most max measures in all (the rest is kept as it
// is: a machine disturbed for good must not make a search endless).
func Again(times, max int, disturbed bool) bool { return disturbed && times < max }

// Rerun measures a step, again while its measure is disturbed, at most max measures in all
// (Again). disturbed says whether a measure was; before each measure again, said is called with
// the disturbed one. It returns the measure kept, how many times the step was measured again, and
// the first error (which ends it).
func Rerun[T any](max int, measure func() (T, error), disturbed func(T) bool, said func(T)) (T, int, error) {
	for times := 1; ; times++ {
		m, err := measure()
		if err != nil {
			return m, times - 1, err
		}
		if !Again(times, max, disturbed(m)) {
			return m, times - 1, nil
		}
		if said != nil {
			said(m)
		}
	}
}

// Key names a measure of a round: the subject, and the run and round it was measured in.
type Key struct {
	Subject string
	Run     int
	Round   int
}

// CleanPairs counts the rounds that give a figure of subject beside reference: those in which
// both were measured undisturbed (clean holds the keys of every undisturbed measure).
func CleanPairs(clean map[Key]bool, subject, reference string) int {
	n := 0
	for k := range clean {
		if k.Subject == subject && clean[Key{Subject: reference, Run: k.Run, Round: k.Round}] {
			n++
		}
	}
	return n
}
