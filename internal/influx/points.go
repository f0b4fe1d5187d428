package influx

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/influxdata/influxdb-client-go/v2/api/write"

	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/measure"
	"github.com/crankshaft/crankshaft/internal/results"
)

// Measurement names (docs/INFLUXDB.md has the schema).
const (
	MeasurementSummary     = "crank_summary"
	MeasurementTimeline    = "crank_timeline"
	MeasurementRun         = "crank_run"
	MeasurementChangePoint = "crank_changepoint"
)

// RequestsPerSecond is the sampled requests-per-second counter that the run timeline plots
// beside any sampled http/rps/mean (an application counter read as a rate).
const RequestsPerSecond = measure.RequestsPerSecond

// ElapsedField is the timeline field holding a sample's seconds since the run's start.
const ElapsedField = "elapsed_s"

// Values of the timeline's phase tag.
const (
	PhaseWarmup   = "warmup"
	PhaseMeasured = "measured"
	PhaseCooldown = "cooldown"
)

// Points builds every point of a run: one crank_summary point per service, one crank_timeline
// point per endpoint, sample time and phase, and one crank_run event. Timestamps and tags come
// from the result alone (start time, sample times), so writing a run again overwrites the same
// points instead of adding new ones. A result with no start time and no sample has no points.
func Points(res *results.Result, tags Tags) []*write.Point {
	start, err := RunTime(res)
	if err != nil {
		return nil
	}
	session := SessionOf(res)
	run := runTags(res, tags)
	var pts []*write.Point
	for _, name := range slices.Sorted(maps.Keys(res.JobResults.Jobs)) {
		jr := res.JobResults.Jobs[name]
		if jr == nil {
			continue
		}
		st := serviceTags(run, session, name, jr, tags)
		if p := summaryPoint(jr.Results, st, start); p != nil {
			pts = append(pts, p)
		}
		pts = append(pts, iterationPoints(jr, st, start)...)
		pts = append(pts, generatorPoints(jr, st, start)...)
		for i, samples := range jr.Measurements {
			pts = append(pts, timelinePoints(samples, st, strconv.Itoa(i), start)...)
		}
	}
	pts = append(pts, phasePoints(res, run, session)...)
	pts = append(pts, capacityPoints(res, run, session, start)...)
	return append(pts, runPoint(res, run, session, start))
}

// RunTime is the timestamp of a run's summary and event points: its start time, or when it has
// none its earliest sample.
func RunTime(res *results.Result) (time.Time, error) {
	if !res.StartTime.IsZero() {
		return res.StartTime.UTC(), nil
	}
	var first time.Time
	for _, jr := range res.JobResults.Jobs {
		for _, samples := range jr.Measurements {
			for _, s := range samples {
				if !s.Timestamp.IsZero() && (first.IsZero() || s.Timestamp.Before(first)) {
					first = s.Timestamp
				}
			}
		}
	}
	if first.IsZero() {
		return first, fmt.Errorf("result has no startTime and no sample")
	}
	return first.UTC(), nil
}

// SessionOf is the run's session tag: its session, or its start time when it has none
// ("20240501-020000").
func SessionOf(res *results.Result) string {
	if res.Session != "" {
		return res.Session
	}
	t, _ := RunTime(res)
	return t.Format("20060102-150405")
}

func summaryPoint(values map[string]float64, tags map[string]string, at time.Time) *write.Point {
	p := write.NewPointWithMeasurement(MeasurementSummary).SetTime(at)
	if addFields(p, values) == 0 {
		return nil
	}
	return withTags(p, tags)
}

// addFields adds the finite values as fields, in name order, and counts them.
func addFields(p *write.Point, values map[string]float64) int {
	n := 0
	for _, k := range slices.Sorted(maps.Keys(values)) {
		if v := values[k]; finite(v) {
			p.AddField(k, v)
			n++
		}
	}
	return n
}

// timelinePoints makes one point per sample time and phase, with a field per measurement name
// and elapsed_s, the seconds since the run's start (the compare dashboard's overlay axis).
func timelinePoints(samples []api.Measurement, tags map[string]string, endpoint string, start time.Time) []*write.Point {
	type key struct {
		at    int64
		phase string
	}
	byKey := map[key]*write.Point{}
	for _, s := range samples {
		if s.Timestamp.IsZero() || !finite(s.Value) || s.Name == "" {
			continue
		}
		k := key{s.Timestamp.UnixNano(), phase(s)}
		p := byKey[k]
		if p == nil {
			p = write.NewPointWithMeasurement(MeasurementTimeline).SetTime(s.Timestamp.UTC()).
				AddField(ElapsedField, s.Timestamp.Sub(start).Seconds())
			byKey[k] = p
		}
		p.AddField(s.Name, s.Value) // a repeated name at one time: the last sample wins
	}
	keys := slices.SortedFunc(maps.Keys(byKey), func(a, b key) int {
		if c := cmp.Compare(a.at, b.at); c != 0 {
			return c
		}
		return cmp.Compare(a.phase, b.phase)
	})
	out := make([]*write.Point, 0, len(keys))
	for _, k := range keys {
		p := withTags(byKey[k], tags)
		p.AddTag("endpoint", endpoint).AddTag("phase", k.phase)
		out = append(out, p.SortTags().SortFields())
	}
	return out
}

func phase(m api.Measurement) string {
	switch {
	case m.Warmup:
		return PhaseWarmup
	case m.Cooldown:
		return PhaseCooldown
	}
	return PhaseMeasured
}

func runPoint(res *results.Result, tags map[string]string, session string, at time.Time) *write.Point {
	var kinds []string
	for _, d := range res.JobResults.Diagnostics {
		kinds = append(kinds, d.Kind)
	}
	from, to := runSpanFields(res, at)
	p := write.NewPointWithMeasurement(MeasurementRun).SetTime(at).
		AddField("from_ms", from).AddField("to_ms", to).
		AddField("description", res.Description).
		AddField("session", session).
		AddField("text", runText(res, tags, session)).
		AddField("returnCode", int64(res.ReturnCode)).
		AddField("services", int64(len(res.JobResults.Jobs))).
		AddField("diagnostics", strings.Join(kinds, ","))
	return withTags(p, tags)
}

// runText is the annotation text: what ran, its session, its description and headline numbers.
func runText(res *results.Result, tags map[string]string, session string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s [%s] session %s", tags["scenario"], tags["profile"], session)
	if res.Description != "" {
		fmt.Fprintf(&b, ": %s", res.Description)
	}
	for _, name := range slices.Sorted(maps.Keys(res.JobResults.Jobs)) {
		jr := res.JobResults.Jobs[name]
		if jr == nil {
			continue
		}
		if v, ok := jr.Results["http/rps/mean"]; ok && finite(v) {
			fmt.Fprintf(&b, "; %s %.0f req/s", name, v)
		}
	}
	for _, d := range res.JobResults.Diagnostics {
		fmt.Fprintf(&b, "; %s", d.Kind)
	}
	if res.ReturnCode != 0 {
		fmt.Fprintf(&b, "; return code %d", res.ReturnCode)
	}
	return b.String()
}

func withTags(p *write.Point, tags map[string]string) *write.Point {
	for _, k := range slices.Sorted(maps.Keys(tags)) {
		// A trailing backslash would escape the separator after it and make the line invalid (the
		// whole run unwritable): it is left off (crank refuses it in --property).
		p.AddTag(strings.TrimRight(k, `\`), strings.TrimRight(tags[k], `\`))
	}
	return p.SortTags().SortFields()
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
