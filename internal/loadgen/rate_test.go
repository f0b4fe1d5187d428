package loadgen

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestRateModeCountsQueueingDelay stalls the server for 200 ms once. A closed-loop generator would
// record one slow response per connection; rate mode measures every request from its intended send
// time, so the requests that should have gone out during the stall carry its delay too.
//
// Keeping pace is checked loosely here: every request sent is answered and at least 900 of the
// 1,000 scheduled are (a generator descheduled beside a busy core leaves a few unsent at the end,
// never a tenth of a second's worth at this rate); the median is under 150 ms (a median carrying
// the 200 ms stall would mean every request did, which is what rate mode must not report). The
// tight 990 and 50 ms are TestRateModeQueueingDelayTight (make measure).
func TestRateModeCountsQueueingDelay(t *testing.T) {
	forEachIO(t, func(t *testing.T, io string) {
		rep := queueingDelayRun(t, io)
		if rep.Requests < 900 || rep.Requests != rep.Sent {
			t.Errorf("requests %d of %d sent; want every one sent answered, at least 900 of the 1000 scheduled", rep.Requests, rep.Sent)
		}
		if rep.Latency.P50 > 150 {
			t.Errorf("p50 %.1f ms; only the requests around the stall should be slow", rep.Latency.P50)
		}
	})
}

// queueingDelayRun runs 1,000 req/s for 1 s against a server that stalls for 200 ms once (after
// 300 requests), checks the stall is in the p99 and the maximum and nothing failed, and returns
// the report.
func queueingDelayRun(t *testing.T, io string) *Report {
	t.Helper()
	const stall = 200 * time.Millisecond
	var once sync.Once
	var until atomic.Int64 // UnixNano the stall ends
	var s *testServer
	served := atomic.Int64{}
	s = newServer(t, func(int64) reply { served.Add(1); return okReply(0) })
	s.pause = func() {
		if served.Load() >= 300 {
			once.Do(func() { until.Store(time.Now().Add(stall).UnixNano()) })
		}
		if d := time.Until(time.Unix(0, until.Load())); d > 0 {
			time.Sleep(d) // the stall being simulated, not a synchronisation
		}
	}
	s.start()
	rep := run(t, Options{IO: io, URL: s.url(), Connections: 10, Rate: 1000, Duration: time.Second})
	if rep.Errors.Total() != 0 {
		t.Fatalf("errors %+v, want none", rep.Errors)
	}
	if rep.Latency.P99 < 180 || rep.Latency.Max < 195 {
		t.Errorf("p99 %.1f ms, max %.1f ms; want the 200 ms stall in both", rep.Latency.P99, rep.Latency.Max)
	}
	return rep
}

// TestRateModeEndsOnTime: at a rate where every connection has a request due just after the end
// and requests in flight, the run still ends with its last responses: a connection once woke for
// such a request (never sent), then spun on its expired deadline without reading until its last
// response timed out, which stretched the window by the timeout and made it the maximum latency.
func TestRateModeEndsOnTime(t *testing.T) {
	forEachIO(t, func(t *testing.T, io string) {
		s := startServer(t, okReply)
		rep := run(t, Options{IO: io, URL: s.url(), Connections: 8, Pipeline: 4, Rate: 40000, Duration: 500 * time.Millisecond, Timeout: 3 * time.Second})
		if rep.Errors.Total() != 0 || rep.Requests != rep.Sent {
			t.Fatalf("requests %d, sent %d, errors %+v; want every request answered", rep.Requests, rep.Sent, rep.Errors)
		}
		if rep.Elapsed > 2*time.Second || rep.Latency.Max > 2000 {
			t.Errorf("window %s, max latency %.1f ms; want the run to end with its last responses, far from the 3 s timeout", rep.Elapsed, rep.Latency.Max)
		}
	})
}
