package loadgen

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestRateModeHitsRate(t *testing.T) {
	s := startServer(t, okReply)
	rep := run(t, Options{URL: s.url(), Connections: 10, Rate: 2000, Duration: time.Second})
	// The schedule has exactly 2000 requests before the end. A generator descheduled at the very
	// end may leave a few unsent; every one sent is answered.
	if rep.Sent+rep.Unsent != 2000 || rep.Unsent > 20 || rep.Requests != rep.Sent || rep.Errors.Total() != 0 {
		t.Errorf("requests %d, sent %d, unsent %d, errors %+v; want the 2000 scheduled sent and answered",
			rep.Requests, rep.Sent, rep.Unsent, rep.Errors)
	}
	if rep.RPS < 2000*0.97 || rep.RPS > 2000*1.03 {
		t.Errorf("rps %.1f, want 2000 within 3%%", rep.RPS)
	}
	if rep.Latency.P50 > 20 {
		t.Errorf("p50 %.2f ms at a light load, want well under 20 ms", rep.Latency.P50)
	}
}

// TestRateModeCountsQueueingDelay stalls the server for 200 ms once. A closed-loop generator would
// record one slow response per connection; rate mode measures every request from its intended send
// time, so the requests that should have gone out during the stall carry its delay too.
func TestRateModeCountsQueueingDelay(t *testing.T) {
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
	rep := run(t, Options{URL: s.url(), Connections: 10, Rate: 1000, Duration: time.Second})
	if rep.Requests < 990 || rep.Errors.Total() != 0 {
		t.Fatalf("requests %d, errors %+v; want about 1000 answered", rep.Requests, rep.Errors)
	}
	if rep.Latency.P99 < 180 || rep.Latency.Max < 195 {
		t.Errorf("p99 %.1f ms, max %.1f ms; want the 200 ms stall in both", rep.Latency.P99, rep.Latency.Max)
	}
	if rep.Latency.P50 > 50 {
		t.Errorf("p50 %.1f ms; only the requests around the stall should be slow", rep.Latency.P50)
	}
}

// TestRateModeEndsOnTime: at a rate where every connection has a request due just after the end
// and requests in flight, the run still ends with its last responses: a connection once woke for
// such a request (never sent), then spun on its expired deadline without reading until its last
// response timed out, which stretched the window by the timeout and made it the maximum latency.
func TestRateModeEndsOnTime(t *testing.T) {
	s := startServer(t, okReply)
	rep := run(t, Options{URL: s.url(), Connections: 8, Pipeline: 4, Rate: 40000, Duration: 500 * time.Millisecond, Timeout: 3 * time.Second})
	if rep.Errors.Total() != 0 || rep.Requests != rep.Sent {
		t.Fatalf("requests %d, sent %d, errors %+v; want every request answered", rep.Requests, rep.Sent, rep.Errors)
	}
	if rep.Elapsed > 2*time.Second || rep.Latency.Max > 2000 {
		t.Errorf("window %s, max latency %.1f ms; want the run to end with its last responses, far from the 3 s timeout", rep.Elapsed, rep.Latency.Max)
	}
}
