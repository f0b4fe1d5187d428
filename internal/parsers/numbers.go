package parsers

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
)

// Number parses a finite decimal number as a tool printed it.
func Number(s string) (float64, error) {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("%q is not a number", s)
	}
	return v, nil
}

var reDuration = regexp.MustCompile(`^([0-9.]+)(us|ms|s|m|h)$`)

// Millis converts a duration as wrk and h2load print them ("583.24us", "1.43ms", "1.10s", wrk's
// "2.00m" and "1.00h") to milliseconds, rounded to the nanosecond.
func Millis(s string) (float64, error) {
	m := reDuration.FindStringSubmatch(s)
	if m == nil {
		return 0, fmt.Errorf("%q is not a duration", s)
	}
	v, err := Number(m[1])
	if err != nil {
		return 0, err
	}
	scale := map[string]float64{"us": 1e-3, "ms": 1, "s": 1e3, "m": 60e3, "h": 3600e3}[m[2]]
	return math.Round(v*scale*1e6) / 1e6, nil
}
