package runner

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"

	"github.com/crankshaft/crankshaft/internal/config"
	"github.com/crankshaft/crankshaft/internal/measure"
	"github.com/crankshaft/crankshaft/internal/threshold"
)

// CheckThresholdMetrics checks, before anything starts, the figures the thresholds name (the
// scenario's and --threshold's) against those a run can report: the catalog's, the jobs' own
// counters and the scenario's results: definitions. A near miss is an error with a suggestion;
// another unknown name is a warning (a job may report it itself).
func CheckThresholdMetrics(errw io.Writer, flags []threshold.Threshold, r *config.Resolved, s *config.Scripts) error {
	return checkMetrics(errw, append(ScenarioThresholds(r), flags...), r, s)
}

// checkVerdict checks, before anything starts, the thresholds a run with these settings is judged
// by: the services --threshold names, and the figures of every threshold (CheckThresholdMetrics).
func checkVerdict(errw io.Writer, v Verdict, r *config.Resolved, s *config.Scripts) error {
	if err := CheckThresholdServices(v.Thresholds, r); err != nil {
		return err
	}
	return checkMetrics(errw, append(v.scenarioThresholds(r), v.Thresholds...), r, s)
}

// checkMetrics checks the figures these thresholds name (CheckThresholdMetrics).
func checkMetrics(errw io.Writer, ths []threshold.Threshold, r *config.Resolved, s *config.Scripts) error {
	known := slices.Collect(maps.Keys(measure.Default()))
	for _, svc := range r.Services {
		for _, c := range svc.Job.Counters {
			known = append(known, c.Measurement)
		}
	}
	if s != nil {
		for _, d := range s.Results {
			known = append(known, d.Name)
		}
	}
	slices.Sort(known)
	errs, warnings := threshold.CheckMetrics(ths, known)
	for _, w := range warnings {
		fmt.Fprintf(errw, "crank: warning: %s\n", w)
	}
	return errors.Join(errs...)
}
