package results

import (
	"github.com/crankshaft/crankshaft/internal/measure"
)

// legacyUnits are units that result files written by earlier versions gave a figure whose unit
// has changed since, with the factor to today's: benchmarks/cpu/per-request was milliseconds in
// single runs and microseconds labelled "us" (from the highest CPU sample) in sweep files.
var legacyUnits = map[string]map[string]float64{
	measure.CPUPerRequest: {measure.UnitMs: 1000, "us": 1},
}

// Upgrade brings a result read from a file to today's units, by its own metadata: a figure whose
// unit has changed is converted (its results, iterations and spread) and its metadata replaced by
// the catalog's, so that comparing an old file with a new one is not off by a factor. It returns
// whether anything changed.
func Upgrade(r *Result) bool {
	changed := false
	for _, jr := range r.JobResults.Jobs {
		if jr == nil {
			continue
		}
		for i, md := range jr.Metadata {
			factor, ok := legacyUnits[md.Name][md.Unit]
			if !ok {
				continue
			}
			scale(jr, md.Name, factor)
			if cat, ok := measure.Default().Lookup(md.Name); ok {
				jr.Metadata[i] = cat
			}
			changed = true
		}
	}
	return changed
}

func scale(jr *JobResult, name string, factor float64) {
	if v, ok := jr.Results[name]; ok {
		jr.Results[name] = v * factor
	}
	for _, it := range jr.Iterations {
		if v, ok := it[name]; ok {
			it[name] = v * factor
		}
	}
	if s, ok := jr.Spread[name]; ok {
		s.Mean, s.Stdev, s.Min, s.Max = s.Mean*factor, s.Stdev*factor, s.Min*factor, s.Max*factor
		jr.Spread[name] = s
	}
}
