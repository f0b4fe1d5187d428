package api

import (
	"strconv"
	"strings"
)

// Number reads a variable's or an environment entry's value as a number: JSON numbers (float64),
// Go integers, numeric strings.
func Number(v any) (float64, bool) {
	switch x := v.(type) {
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	case float64:
		return x, true
	case string:
		f, err := strconv.ParseFloat(strings.TrimSpace(x), 64)
		return f, err == nil
	}
	return 0, false
}
