package influx

import (
	"time"

	"github.com/influxdata/influxdb-client-go/v2/api/write"
)

// Values of crank_changepoint's direction tag.
const (
	ChangeRegression  = "regression"
	ChangeImprovement = "improvement"
	// ChangeUnknown is a change of a metric whose better direction is unknown.
	ChangeUnknown = "change"
)

// ChangePoint is a lasting change of one measurement found in a series of runs (written by the
// regressions command, shown as an annotation on the nightly dashboard).
type ChangePoint struct {
	// Time is the start time of the first run after the change. The point's timestamp is Time
	// truncated to the millisecond (as InfluxQL reads history back), so a change found in a
	// folder of results and the same change found in InfluxDB are one point.
	Time              time.Time
	Scenario, Profile string
	Service           string
	// Metric is the measurement name ("http/rps/mean").
	Metric            string
	Arch, OS, Machine string
	// Variant and Branch are the series' variant and branch tags (VariantOf; empty: none).
	Variant, Branch string
	// Direction is ChangeRegression, ChangeImprovement or ChangeUnknown.
	Direction string
	// Before and After are the typical values on each side of the change.
	Before, After float64
	// Session and Commit are those of the first run after the change.
	Session, Commit string
	Text            string
}

// Point is the crank_changepoint point of a change: its tags say where (scenario, profile,
// service, metric, direction, arch, os, machine, variant, branch), its fields what (before, after, change_pct,
// session, commit, text). Writing the same change twice overwrites it.
func (c ChangePoint) Point() *write.Point {
	p := write.NewPointWithMeasurement(MeasurementChangePoint).SetTime(c.Time.UTC().Truncate(time.Millisecond))
	tags := clean(map[string]string{
		"scenario": or(c.Scenario, NoScenario), "profile": or(c.Profile, NoProfile), "service": c.Service,
		"metric": c.Metric, "direction": c.Direction, "arch": c.Arch, "os": c.OS, "machine": c.Machine,
		"variant": c.Variant, "branch": c.Branch,
	})
	p.AddField("before", c.Before).AddField("after", c.After).
		AddField("session", c.Session).AddField("commit", c.Commit).AddField("text", c.Text)
	if c.Before != 0 && finite(c.After/c.Before) {
		p.AddField("change_pct", (c.After-c.Before)/c.Before*100)
	}
	return withTags(p, tags)
}
