package influx

import (
	"maps"
	"time"

	"github.com/influxdata/influxdb-client-go/v2/api/write"

	"github.com/crankshaft/crankshaft/internal/results"
)

// MeasurementGenerator holds one point per generator of a load split across endpoints: its own
// figures beside the merged ones of crank_summary (docs/DISTRIBUTED.md).
const MeasurementGenerator = "crank_generator"

// generatorPoints makes one crank_generator point per generator of the service that has
// figures, tagged with its endpoint, and a `failed` field (1) for one that was lost.
func generatorPoints(jr *results.JobResult, tags map[string]string, at time.Time) []*write.Point {
	var out []*write.Point
	for _, g := range jr.Generators {
		p := write.NewPointWithMeasurement(MeasurementGenerator).SetTime(at)
		n := addFields(p, g.Results)
		if g.FellBehind {
			p.AddField("fell_behind", 1)
			n++
		}
		if g.Failed != "" {
			p.AddField("failed", 1)
			n++
		}
		if n == 0 {
			continue
		}
		t := maps.Clone(tags)
		t["generator"] = g.Endpoint
		out = append(out, withTags(p, t))
	}
	return out
}
