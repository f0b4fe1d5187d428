package parsers

import (
	"fmt"
	"math"
	"strings"

	"github.com/crankshaft/crankshaft/internal/measure"
)

// percentileOrder lists the latency percentiles from low to high: a tool's values must not fall
// along it (the maximum last).
var percentileOrder = [...]string{measure.Latency50, measure.Latency75, measure.Latency90, measure.Latency95, measure.Latency99, measure.LatencyMax}

// Implausible checks any tool's parsed values for figures no real run can give and moves them out
// of values, returning each one's reason: a value that is not a finite number or is negative; a
// latency percentile of 0 while a lower one (or the mean) is not; a latency percentile below a
// lower one by more than the tools' rounding (2 %, and 0.01 ms). The agent applies it to every
// parser, so a tool whose output lies is reported as not measured rather than trusted.
func Implausible(values map[string]float64) map[string]string {
	why := map[string]string{}
	for name, v := range values {
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			why[name] = fmt.Sprintf("the tool gave %v, which no run can measure", v)
		}
	}
	// ref is the latest positive latency seen (the mean first), which a 0 contradicts; highest the
	// highest percentile so far, which a later one must not fall below.
	ref, refName := 0.0, ""
	if mean := values[measure.LatencyMean]; why[measure.LatencyMean] == "" && mean > 0 {
		ref, refName = mean, measure.LatencyMean
	}
	highest, highestName := 0.0, ""
	for _, name := range percentileOrder {
		v, ok := values[name]
		if !ok || why[name] != "" {
			continue
		}
		switch {
		case v == 0 && ref > 0:
			why[name] = fmt.Sprintf("the tool printed 0 while %s is %s ms", refName, trim(ref))
		case highest-v > max(0.02*highest, 0.01):
			why[name] = fmt.Sprintf("the tool printed %s ms, below %s's %s ms", trim(v), highestName, trim(highest))
		default:
			if v >= highest {
				highest, highestName = v, name
			}
			if v > 0 {
				ref, refName = v, name
			}
		}
	}
	for alias, ours := range measure.Aliases { // the same value under a tool's own name goes too
		if _, ok := values[alias]; ok && why[ours] != "" {
			why[alias] = why[ours]
		}
	}
	for name := range why {
		delete(values, name)
	}
	if len(why) == 0 {
		return nil
	}
	return why
}

func trim(v float64) string {
	s := fmt.Sprintf("%.3f", v)
	return strings.TrimRight(strings.TrimRight(s, "0"), ".")
}
