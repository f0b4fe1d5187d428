package influx

import (
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/influxdata/influxdb-client-go/v2/api/write"

	"github.com/crankshaft/crankshaft/internal/capacity"
	"github.com/crankshaft/crankshaft/internal/results"
)

// Measurements of crank capacity (docs/INFLUXDB.md).
const (
	MeasurementCapacity     = "crank_capacity"
	MeasurementCapacityStep = "crank_capacity_step"
)

// capacityPoints are a capacity search's answer (one crank_capacity point) and its steps (one
// crank_capacity_step point each, tagged with its number), at the run's time; none for a run that
// is not a capacity search.
func capacityPoints(res *results.Result, tags map[string]string, session string, at time.Time) []*write.Point {
	if len(res.Capacity) == 0 {
		return nil
	}
	var c capacity.Result
	if json.Unmarshal(res.Capacity, &c) != nil {
		return nil
	}
	answer := write.NewPointWithMeasurement(MeasurementCapacity).SetTime(at).
		AddTag("session", session).
		AddField("rate", c.Rate).AddField("failedAt", c.FailedAt).
		AddField("failedSlo", strings.Join(c.FailedSLO, "; ")).AddField("slos", strings.Join(c.SLOs, ", ")).
		AddField("verdict", c.Verdict).AddField("verdictKind", c.VerdictKind).
		AddField("steps", int64(len(c.Steps)))
	if c.Inconclusive != "" { // the search cannot tell: rate and failedAt are its bracket, not an answer
		answer.AddField("inconclusive", c.Inconclusive)
	}
	pts := []*write.Point{withTags(answer, tags)}
	for i, s := range c.Steps {
		p := write.NewPointWithMeasurement(MeasurementCapacityStep).SetTime(at).
			AddTag("session", session).AddTag("step", strconv.Itoa(i+1)).
			AddField("asked", s.Asked).AddField("achieved", s.Achieved).
			AddField("latency50", s.Latency50).AddField("latency90", s.Latency90).AddField("latency99", s.Latency99).
			AddField("errorRate", s.ErrorRate).AddField("serverCpu", s.ServerCPU).
			AddField("lockContention", s.LockContention).AddField("exceptions", s.Exceptions).
			AddField("pass", s.Pass).AddField("fellBehind", s.FellBehind).AddField("disturbed", s.Disturbed()).
			AddField("failed", strings.Join(s.Failed, "; "))
		pts = append(pts, withTags(p, tags))
	}
	return pts
}
