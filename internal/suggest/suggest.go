// Package suggest finds, for a name that is not known (a flag, a key, a variable, a figure), the
// known name nearest to it, for "did you mean" hints. Distances are Levenshtein's
// (github.com/agnivade/levenshtein), ignoring case.
package suggest

import (
	"strings"

	"github.com/agnivade/levenshtein"
)

// Closest is the known name nearest to s within maxDistance edits (ignoring case), or "" when
// none is that near. Of names equally near, the first in known wins.
func Closest(s string, known []string, maxDistance int) string {
	best, bestD := "", maxDistance+1
	ls := strings.ToLower(s)
	for _, k := range known {
		if d := levenshtein.ComputeDistance(ls, strings.ToLower(k)); d < bestD {
			best, bestD = k, d
		}
	}
	return best
}

// Near is Closest with a distance that grows with the name: a third of its length, at least 2.
func Near(s string, known []string) string {
	return Closest(s, known, max(2, len(s)/3))
}
