package results

import (
	"strconv"
	"strings"
)

// ParseExclude reads --exclude's LOW[:HIGH] (N alone: N each side).
func ParseExclude(v string) (lo, hi int, ok bool) {
	a, b, two := strings.Cut(v, ":")
	lo, err := strconv.Atoi(strings.TrimSpace(a))
	if err != nil || lo < 0 {
		return 0, 0, false
	}
	if !two {
		return lo, lo, true
	}
	hi, err = strconv.Atoi(strings.TrimSpace(b))
	if err != nil || hi < 0 {
		return 0, 0, false
	}
	return lo, hi, true
}
