package loadgen

import (
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/measure"
)

// Second is one second of the measured window: the responses completed in it and their latency.
type Second struct {
	// Time is the end of the second (the timestamp of its measurements).
	Time time.Time `json:"time"`
	// Requests is the number of responses completed in the second.
	Requests int64 `json:"requests"`
	// RPS is Requests divided by the second's length: the last second of the window may be
	// shorter (it ends with the window).
	RPS     float64 `json:"rps"`
	Latency Latency `json:"latency"`
}

// Names of the timeline's measurements: one value per second, timestamped at the second's end,
// as the agent's samples are.
const (
	TimelineRPS       = "builtin/timeline/rps"
	TimelineLatency50 = "builtin/timeline/latency/50"
	TimelineLatency99 = "builtin/timeline/latency/99"
	TimelineLatencyMx = "builtin/timeline/latency/max"
)

// timelineMetadata describes the timeline's measurements.
func timelineMetadata() []api.Metadata {
	md := func(name, unit, short, long string) api.Metadata {
		return api.Metadata{Source: "builtin", Name: name, Aggregate: api.OpAvg, Reduce: api.OpAvg,
			Format: "n2", Unit: unit, ShortDescription: short, LongDescription: long}
	}
	return []api.Metadata{
		md(TimelineRPS, measure.UnitRPS, "Requests/sec, per second", "Responses completed in each second of the run"),
		md(TimelineLatency50, measure.UnitMs, "Latency 50th (ms), per second", "Median latency of the responses completed in each second"),
		md(TimelineLatency99, measure.UnitMs, "Latency 99th (ms), per second", "99th percentile latency of the responses completed in each second"),
		md(TimelineLatencyMx, measure.UnitMs, "Max latency (ms), per second", "Highest latency of the responses completed in each second"),
	}
}

// newTimeline merges the shards' per-second histograms: one Second per started second of the
// window (start, start+elapsed).
func newTimeline(shards []*shard, start time.Time, elapsed time.Duration) []Second {
	n := int((elapsed + time.Second - 1) / time.Second)
	for _, s := range shards {
		n = max(n, len(s.secs))
	}
	out := make([]Second, n)
	for i := range out {
		h := hdrhistogram.New(histMinUs, histMaxUs, secSigFigs)
		for _, s := range shards {
			if i < len(s.secs) {
				h.Merge(s.secs[i])
			}
		}
		length := min(time.Second, max(elapsed-time.Duration(i)*time.Second, time.Millisecond))
		out[i] = Second{Time: start.Add(time.Duration(i)*time.Second + length),
			Requests: h.TotalCount(), Latency: summarize(h)}
		out[i].RPS = float64(out[i].Requests) / length.Seconds()
	}
	return out
}

// timelineMeasurements returns the timeline as timestamped measurements.
func timelineMeasurements(t []Second) []api.Measurement {
	ms := make([]api.Measurement, 0, 4*len(t))
	for _, s := range t {
		ms = append(ms,
			api.Measurement{Name: TimelineRPS, Timestamp: s.Time, Value: s.RPS},
			api.Measurement{Name: TimelineLatency50, Timestamp: s.Time, Value: s.Latency.P50},
			api.Measurement{Name: TimelineLatency99, Timestamp: s.Time, Value: s.Latency.P99},
			api.Measurement{Name: TimelineLatencyMx, Timestamp: s.Time, Value: s.Latency.Max})
	}
	return ms
}
