package influx

import (
	"maps"
	"strconv"
	"time"

	"github.com/influxdata/influxdb-client-go/v2/api/write"

	"github.com/crankshaft/crankshaft/internal/results"
)

// Measurements a run adds beside its summary and timeline (docs/INFLUXDB.md).
const (
	// MeasurementPhase holds one point per load phase of a run (warm-up, measured, cool-down),
	// at the phase's start with its end in end_ms: the run dashboard shades them.
	MeasurementPhase = "crank_phase"
	// MeasurementIteration holds one point per service and iteration (the result itself when
	// the run had one): the compare dashboard's spread across iterations.
	MeasurementIteration = "crank_iteration"
)

// linkMargin widens a run's [from_ms, to_ms] so the run dashboard opened from a link shows its edges.
const linkMargin = 5 * time.Second

// span is the first and last sample time of a set of samples.
type span struct{ from, to time.Time }

func (s *span) add(t time.Time) {
	if s.from.IsZero() || t.Before(s.from) {
		s.from = t
	}
	if t.After(s.to) {
		s.to = t
	}
}

// phaseSpans are the first and last sample of each phase over every service and endpoint, and
// of the whole run. Phases follow each other: a phase starts at its first sample after the
// previous phase's last one (services are sampled at slightly different instants, so one may
// still be warming up when another's samples are already measured).
func phaseSpans(res *results.Result) (map[string]*span, span) {
	times := map[string][]time.Time{}
	var all span
	for _, jr := range res.JobResults.Jobs {
		if jr == nil {
			continue
		}
		for _, samples := range jr.Measurements {
			for _, s := range samples {
				if !s.Timestamp.IsZero() {
					times[phase(s)] = append(times[phase(s)], s.Timestamp)
					all.add(s.Timestamp)
				}
			}
		}
	}
	phases := map[string]*span{}
	var prev time.Time
	for _, name := range []string{PhaseWarmup, PhaseMeasured, PhaseCooldown} {
		var sp span
		for _, t := range times[name] {
			if t.After(prev) || prev.IsZero() {
				sp.add(t)
			}
		}
		if !sp.from.IsZero() {
			phases[name] = &sp
			prev = sp.to
		}
	}
	return phases, all
}

// phasePoints are the crank_phase points of a run: a phase spans from its first sample to the
// next phase's first sample (or its own last sample for the last phase).
func phasePoints(res *results.Result, run map[string]string, session string) []*write.Point {
	spans, _ := phaseSpans(res)
	order := []string{PhaseWarmup, PhaseMeasured, PhaseCooldown}
	var out []*write.Point
	for i, name := range order {
		s := spans[name]
		if s == nil {
			continue
		}
		end := s.to
		for _, next := range order[i+1:] {
			if n := spans[next]; n != nil {
				end = n.from
				break
			}
		}
		p := write.NewPointWithMeasurement(MeasurementPhase).SetTime(s.from.UTC()).
			AddField("end_ms", end.UnixMilli()).
			AddField("text", name+" "+end.Sub(s.from).Round(time.Millisecond).String())
		tags := maps.Clone(run)
		tags["session"], tags["phase"] = session, name
		out = append(out, withTags(p, tags))
	}
	return out
}

// runSpanFields are crank_run's from_ms and to_ms: the run's samples (or its start) with a margin,
// the time range of the run dashboard's link.
func runSpanFields(res *results.Result, start time.Time) (from, to int64) {
	_, all := phaseSpans(res)
	if all.from.IsZero() || start.Before(all.from) {
		all.from = start
	}
	if all.to.Before(start) {
		all.to = start
	}
	return all.from.Add(-linkMargin).UnixMilli(), all.to.Add(linkMargin).UnixMilli()
}

// iterationPoints are a service's crank_iteration points: one per iteration, tagged with its
// number (1...), or the results themselves as iteration 1.
func iterationPoints(jr *results.JobResult, tags map[string]string, at time.Time) []*write.Point {
	its := jr.Iterations
	if len(its) == 0 {
		its = []map[string]float64{jr.Results}
	}
	var out []*write.Point
	for i, values := range its {
		p := write.NewPointWithMeasurement(MeasurementIteration).SetTime(at)
		if addFields(p, values) == 0 {
			continue
		}
		t := maps.Clone(tags)
		t["iteration"] = strconv.Itoa(i + 1)
		out = append(out, withTags(p, t))
	}
	return out
}
