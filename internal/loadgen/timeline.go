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
	// RPS is Requests divided by the second's length. The last second runs from its start to the
	// end of the window, which includes the drain of the requests in flight after the duration
	// (and is shorter when the duration is not a whole number of seconds).
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
// duration. The responses that complete while the requests in flight drain after the duration
// count in its last second, which then lasts until the end of the window (elapsed).
func newTimeline(shards []*shard, start time.Time, duration, elapsed time.Duration) []Second {
	n := int((duration + time.Second - 1) / time.Second)
	if elapsed < duration { // an interrupted run
		n = int((elapsed + time.Second - 1) / time.Second)
	}
	out := make([]Second, n)
	for i := range out {
		h := hdrhistogram.New(histMinUs, histMaxUs, secSigFigs)
		for _, s := range shards {
			for j := i; j < len(s.secs) && (j == i || i == n-1); j++ {
				h.Merge(s.secs[j])
			}
		}
		from := time.Duration(i) * time.Second
		to := min(from+time.Second, duration)
		if i == n-1 {
			to = max(to, elapsed)
		}
		out[i] = Second{Time: start.Add(to), Requests: h.TotalCount(), Latency: summarize(h)}
		if to > from {
			out[i].RPS = float64(out[i].Requests) / (to - from).Seconds()
		}
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
