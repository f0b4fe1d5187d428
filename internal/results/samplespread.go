package results

import (
	"fmt"

	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/measure"
)

// minSamplesForSpread is how many measured samples a single run's figure needs before the table
// gives their spread: two say little.
const minSamplesForSpread = 3

// withSampleSpread gives a single run's averaged figure the spread of the samples it averages,
// "238,775 ± 2.1% over 5 samples", so that one run shows how steady it was (issue 48: "a single
// run shows no spread at all, not even the per-second one"). Over iterations the iterations'
// spread is given instead (withSpread). http/rps/mean, a tool's one summary, takes the spread of
// the built-in generator's per-second rates when the run has them. Only one endpoint: over
// several, the figure is a sum of their means, which no one timeline's spread describes.
func withSampleSpread(jr *JobResult, md api.Metadata, value string) string {
	if sp, ok := jr.Spread[md.Name]; (ok && sp.N >= 2) || len(jr.Measurements) != 1 {
		return value
	}
	name := md.Name
	switch {
	case name == measure.RPS:
		name = measure.BuiltinRPSPerSecond
	case md.Aggregate != api.OpAvg:
		return value
	}
	var values []float64
	for _, m := range jr.Measurements[0] {
		if m.Name == name && m.Measured() {
			values = append(values, m.Value)
		}
	}
	if len(values) < minSamplesForSpread {
		return value
	}
	sp := SpreadOf(values)
	if name == measure.BuiltinRPSPerSecond {
		return fmt.Sprintf("%s ± %.1f%% per second (%d s)", value, sp.CV, sp.N)
	}
	return fmt.Sprintf("%s ± %.1f%% over %d samples", value, sp.CV, sp.N)
}
