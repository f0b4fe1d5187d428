package loadgen

import (
	"context"
	"time"
)

// recorder tallies one client's outcomes in the measured window: counters, and latencies added to
// its shard in batches, each batch within one second of the window (for the timeline). Every
// protocol's client embeds one; only the client's own goroutine (or its lock holder) writes it.
type recorder struct {
	cfg   *runConfig
	st    counters
	shard *shard
	lat   []int64 // latencies (us) of second sec not yet added to shard
	sec   int
}

func newRecorder(cfg *runConfig, sh *shard) recorder {
	return recorder{cfg: cfg, shard: sh, lat: make([]int64, 0, latencyBatch)}
}

func (r *recorder) now() int64 { return int64(time.Since(r.cfg.base)) }

func (r *recorder) recording(now int64) bool { return now >= r.cfg.measureFrom }

// response records one response completed at now whose latency counts from origin; class is
// the HTTP status class (1 to 5; 0 for none). bad marks it a bad response whatever its class
// (a gRPC status other than OK).
func (r *recorder) response(now, origin int64, class int, bad bool) {
	if !r.recording(now) {
		return
	}
	r.st.responses++
	if now <= r.cfg.end {
		r.st.inWindow++ // the RPS window: completed within the duration (report.go)
	}
	class = min(max(class, 0), 5)
	r.st.status[class]++
	if bad && (class == 2 || class == 3) { // other classes count as bad already
		r.st.bad++
	}
	if sec := int((now - r.cfg.measureFrom) / int64(time.Second)); sec != r.sec {
		r.flushLatencies()
		r.sec = sec
	}
	r.lat = append(r.lat, (now-origin)/int64(time.Microsecond))
	if len(r.lat) == cap(r.lat) {
		r.flushLatencies()
	}
}

// count counts an error of the given kind when it happens in the measured window.
func (r *recorder) count(kind *int64, now int64) {
	if r.recording(now) {
		*kind++
	}
}

func (r *recorder) flushLatencies() {
	if len(r.lat) > 0 {
		r.shard.add(r.sec, r.lat)
		r.lat = r.lat[:0]
	}
}

// connectFailed counts a failed connection attempt (unless the run was cancelled), keeps its
// message if it is the first, and backs off before the next one.
func (r *recorder) connectFailed(ctx context.Context, err error, fails *int) {
	if ctx.Err() != nil {
		return
	}
	r.count(&r.st.errors.Connect, r.now())
	r.st.noteConnectError(err)
	r.cfg.backoff(ctx, fails)
}
