package gate

import (
	"context"
	"fmt"
	"io"

	"github.com/crankshaft/crankshaft/internal/influx"
	"github.com/crankshaft/crankshaft/internal/results"
)

// ChangePoints are the findings as crank_changepoint points. Each point's time and tags come from
// the finding alone (the first run after the change, the series, the direction), so writing the
// same finding again overwrites its point.
func (h History) ChangePoints() []influx.ChangePoint {
	out := make([]influx.ChangePoint, 0, len(h.Findings))
	for _, f := range h.Findings {
		dir := influx.ChangeImprovement
		switch {
		case f.Regression:
			dir = influx.ChangeRegression
		case f.Direction == DirectionUnknown.String():
			dir = influx.ChangeUnknown
		}
		out = append(out, influx.ChangePoint{
			Time: f.Time, Scenario: f.Scenario, Profile: f.Profiles, Service: f.Service, Metric: f.Metric,
			Arch: f.Arch, OS: f.OS, Machine: f.Machine, Variant: f.Variant, Branch: f.Branch, Direction: dir, Before: f.Before, After: f.After,
			Session: f.Session, Commit: f.Commit,
			Text: fmt.Sprintf("%s %s %s %+.2f%% (%s to %s, p %.2g)", dir, f.Service, f.Metric, 100*f.Change,
				results.Format(f.Before, "n2"), results.Format(f.After, "n2"), f.PValue),
		})
	}
	return out
}

// writeChangePoints writes h's change points to InfluxDB and says on w what happened. It returns
// false when they could be neither written nor spooled.
func writeChangePoints(ctx context.Context, cfg influx.Config, h History, w io.Writer) bool {
	if len(h.Findings) == 0 {
		return true
	}
	sum, err := influx.WriteChangePoints(ctx, cfg, h.ChangePoints())
	if err != nil {
		fmt.Fprintf(w, "crank regressions: change points not written: %v\n", err)
		return false
	}
	fmt.Fprintf(w, "crank regressions: change points: %s\n", sum.String())
	return true
}
