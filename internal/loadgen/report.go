package loadgen

import (
	"encoding/json"
	"runtime"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
	"google.golang.org/grpc/codes"

	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/measure"
	"github.com/crankshaft/crankshaft/internal/results"
)

// Report is the outcome of a run's measured window.
type Report struct {
	Options Options `json:"options"`
	// IO is the I/O the HTTP/1.1 connections did: uring or epoll (Options.IO).
	IO string `json:"io"`
	// IOFallback says why auto took epoll where io_uring was refused; empty otherwise.
	IOFallback string `json:"ioFallback,omitempty"`
	// Threads is the GOMAXPROCS the run had.
	Threads int `json:"threads"`
	// Start is the start of the measured window (the end of the warm-up).
	Start time.Time `json:"start"`
	// Elapsed is the window's length: from Start until the last connection drained its requests
	// in flight after the end of Options.Duration.
	Elapsed time.Duration `json:"elapsed"`
	// Requests is the number of responses received in the window (http/requests).
	Requests int64 `json:"requests"`
	// Sent is the number of requests written in the window.
	Sent int64 `json:"sent"`
	// BadResponses are responses with a status outside 2xx and 3xx, and gRPC calls whose status
	// is not OK.
	BadResponses int64 `json:"badResponses"`
	// Status counts responses by class ("2xx": n).
	Status map[string]int64 `json:"status"`
	Errors ErrorCounts      `json:"errors"`
	// Unsent counts rate-mode requests whose intended time fell before the end but that were
	// never sent because their connection was still waiting for earlier responses.
	Unsent int64 `json:"unsent"`
	// Dropped counts requests that were in flight on a connection when it closed, and so were
	// never answered: behind a response with Connection: close, a malformed response or a read
	// error. (Requests that timed out are counted in Errors.Timeout instead.)
	Dropped int64 `json:"dropped"`
	// Bytes is the number of response bytes read.
	Bytes int64 `json:"bytes"`
	// GRPCStatus counts gRPC calls by status ("OK": n, "Unavailable": n); calls that ended with
	// no status count as Unknown. Every status but OK is also a bad response.
	GRPCStatus map[string]int64 `json:"grpcStatus,omitempty"`
	// ConnectError is the first connection failure's message, when there was one.
	ConnectError string `json:"connectError,omitempty"`
	// ServerMaxStreams is the lowest MAX_CONCURRENT_STREAMS an HTTP/2 server set below
	// Options.Streams (the streams the run could keep in flight per connection); 0 when none did.
	ServerMaxStreams int `json:"serverMaxStreams,omitempty"`
	// Timeline is the window second by second.
	Timeline []Second `json:"timeline"`
	// InWindow is the number of responses completed within Options.Duration (not while draining).
	InWindow int64 `json:"inWindow"`
	// RPS is counted as wrk counts it: InWindow divided by the duration in seconds (by Elapsed for
	// an interrupted run).
	RPS float64 `json:"rps"`
	// Latency summarizes Histogram in milliseconds.
	Latency Latency `json:"latency"`
	// Histogram holds every recorded latency in microseconds.
	Histogram *hdrhistogram.Histogram `json:"-"`
}

// Latency is a latency summary in milliseconds.
type Latency struct {
	Mean float64 `json:"mean"`
	P50  float64 `json:"p50"`
	P75  float64 `json:"p75"`
	P90  float64 `json:"p90"`
	P95  float64 `json:"p95"`
	P99  float64 `json:"p99"`
	Max  float64 `json:"max"`
}

// Results returns the report as measurements, named as the wrk driver names them (latencies in
// milliseconds) plus builtin/rps/mean.
func (r *Report) Results() map[string]float64 {
	return map[string]float64{
		measure.Requests:     float64(r.Requests),
		measure.BadResponses: float64(r.BadResponses),
		measure.Errors:       float64(r.Errors.Total()),
		measure.RPS:          r.RPS,
		measure.BuiltinRPS:   r.RPS,
		measure.LatencyMean:  r.Latency.Mean,
		measure.Latency50:    r.Latency.P50,
		measure.Latency75:    r.Latency.P75,
		measure.Latency90:    r.Latency.P90,
		measure.Latency95:    r.Latency.P95,
		measure.Latency99:    r.Latency.P99,
		measure.LatencyMax:   r.Latency.Max,
	}
}

// MarshalJSON writes Elapsed in seconds.
func (r Report) MarshalJSON() ([]byte, error) {
	type plain Report
	return json.Marshal(struct {
		plain
		Elapsed api.Duration `json:"elapsed"`
	}{plain(r), api.Duration(r.Elapsed)})
}

// UnmarshalJSON reads what MarshalJSON writes (without the histogram).
func (r *Report) UnmarshalJSON(b []byte) error {
	type plain Report
	var v struct {
		plain
		Elapsed api.Duration `json:"elapsed"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*r = Report(v.plain)
	r.Elapsed = v.Elapsed.Std()
	return nil
}

// window is the measured window's length (Elapsed): from the end of the warm-up until the end of
// the duration or until the last client finished draining its requests in flight, whichever is
// later. An interrupted run's window ends when its last client stopped. RPS divides only the
// responses completed within the duration by the duration, as wrk does (newReport).
func window(cfg *runConfig, clients []client, interrupted bool) time.Duration {
	last := cfg.end
	if interrupted {
		last = 0
	}
	for _, c := range clients {
		last = max(last, c.stoppedAt())
	}
	return time.Duration(max(0, last-cfg.measureFrom))
}

// newReport merges the clients' counters and the shards' histograms.
func newReport(o Options, cfg *runConfig, clients []client, shards []*shard, interrupted bool) *Report {
	var total counters
	for _, c := range clients {
		total.add(c.tally())
	}
	hist := newHistogram()
	for _, s := range shards {
		hist.Merge(s.hist)
	}
	r := &Report{
		Options: o, IO: cfg.io, IOFallback: cfg.ioFallback, Threads: runtime.GOMAXPROCS(0), Start: cfg.base.Add(time.Duration(cfg.measureFrom)),
		Elapsed:  window(cfg, clients, interrupted),
		Requests: total.responses, Sent: total.sent, Errors: total.errors,
		BadResponses: total.status[0] + total.status[1] + total.status[4] + total.status[5] + total.bad,
		Status:       map[string]int64{},
		Unsent:       total.unsent, Dropped: total.dropped, Bytes: total.bytes,
		ConnectError: total.connectError, ServerMaxStreams: total.streamLimit,
		Histogram: hist, Latency: summarize(hist),
	}
	for class := 1; class <= 5; class++ {
		if n := total.status[class]; n > 0 {
			r.Status[string(rune('0'+class))+"xx"] = n
		}
	}
	if o.Protocol == ProtocolGRPC {
		r.GRPCStatus = map[string]int64{}
		for code, n := range total.grpc {
			if n > 0 {
				r.GRPCStatus[codes.Code(code).String()] = n
			}
		}
	}
	// RPS as wrk counts it: responses completed within the duration, over the duration (Elapsed,
	// the whole window with the drain, for an interrupted run).
	r.InWindow = total.inWindow
	rpsWindow := time.Duration(cfg.end - cfg.measureFrom)
	if interrupted {
		rpsWindow = r.Elapsed
	}
	if rpsWindow > 0 {
		r.RPS = float64(r.InWindow) / rpsWindow.Seconds()
	}
	r.Timeline = newTimeline(shards, r.Start, o.Duration, r.Elapsed)
	return r
}

// summarize takes the figures as a merge of generators takes them (results.LatencyFigures).
func summarize(h *hdrhistogram.Histogram) Latency {
	f := results.LatencyFigures(h)
	return Latency{
		Mean: f[measure.LatencyMean], P50: f[measure.Latency50], P75: f[measure.Latency75],
		P90: f[measure.Latency90], P95: f[measure.Latency95], P99: f[measure.Latency99], Max: f[measure.LatencyMax],
	}
}
