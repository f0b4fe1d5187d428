package threshold

import (
	"fmt"
	"slices"

	"github.com/crankshaft/crankshaft/internal/suggest"
)

// CheckMetrics checks, before a run, the figure each threshold names against the known ones (the
// catalog's, the jobs' counters, the scenario's own results:). A name within a few letters of a
// known one is a typing mistake: an error naming both ("http/latency/p99": did you mean
// http/latency/99?). Any other unknown name can still come from a job itself (crank's
// #StartJobStatistics), so it is a warning that says what happens if nothing reports it.
func CheckMetrics(ths []Threshold, known []string) (errs []error, warnings []string) {
	for _, t := range ths {
		if slices.Contains(known, t.Metric) {
			continue
		}
		if near := suggest.Near(t.Metric, known); near != "" {
			errs = append(errs, fmt.Errorf("threshold %q (%s): %s is not a figure crank knows; did you mean %s?", t.String(), t.Source, t.Metric, near))
			continue
		}
		warnings = append(warnings, fmt.Sprintf("threshold %q (%s): %s is not in the catalog of figures (docs/MEASUREMENTS.md); "+
			"unless a job reports it itself, the threshold fails as not reported", t.String(), t.Source, t.Metric))
	}
	return errs, warnings
}
