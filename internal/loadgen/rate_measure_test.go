//go:build measure

package loadgen

import (
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

// TestRateModeQueueingDelayTight: TestRateModeCountsQueueingDelay's run keeping pace: about all
// of the 1,000 scheduled requests answered (at least 990) and the median under 50 ms, only the
// requests around the stall being slow.
func TestRateModeQueueingDelayTight(t *testing.T) {
	rep := queueingDelayRun(t, IOAuto)
	if rep.Requests < 990 {
		t.Errorf("requests %d; want about 1000 answered", rep.Requests)
	}
	if rep.Latency.P50 > 50 {
		t.Errorf("p50 %.1f ms; only the requests around the stall should be slow", rep.Latency.P50)
	}
}
