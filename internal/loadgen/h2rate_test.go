package loadgen

import (
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestH2RateModeCountsStall is the behaviour of HTTP/2's fixed-rate mode, checked with margins
// that hold beside a busy core and under the race detector (make check runs this package with
// -race; the tight figures are TestH2RateModeShowsStall in make measure): the server stalls for
// 300 ms once; every request scheduled is sent or counted unsent, every one sent is answered, at
// least 450 of the 500 are sent, the stall is in the maximum and the p99 (measured from each
// request's intended time), and the median is not.
func TestH2RateModeCountsStall(t *testing.T) {
	const (
		rate  = 500
		stall = 300 * time.Millisecond
	)
	var once sync.Once
	var until atomic.Int64 // UnixNano the stall ends
	var served atomic.Int64
	h := &h2Counter{respond: func(w http.ResponseWriter, r *http.Request) {
		if served.Add(1) >= 200 {
			once.Do(func() { until.Store(time.Now().Add(stall).UnixNano()) })
		}
		if d := time.Until(time.Unix(0, until.Load())); d > 0 {
			time.Sleep(d) // the stall being simulated, not a synchronisation
		}
	}}
	url := startH2C(t, h)
	rep := run(t, Options{URL: url, Protocol: ProtocolH2, Connections: 4, Streams: 100, Rate: rate, Duration: time.Second})
	if rep.Sent+rep.Unsent != rate || rep.Requests != rep.Sent || rep.Errors.Total() != 0 {
		t.Fatalf("requests %d, sent %d, unsent %d, errors %s; want the %d scheduled sent or unsent, every one sent answered",
			rep.Requests, rep.Sent, rep.Unsent, rep.Errors, rate)
	}
	if rep.Sent < 450 {
		t.Errorf("sent %d of %d; a generator keeping its schedule leaves at most a few unsent", rep.Sent, rate)
	}
	if rep.Latency.Max < 290 || rep.Latency.P99 < 150 {
		t.Errorf("max %.1f ms, p99 %.1f ms; want the 300 ms stall in the maximum and the p99", rep.Latency.Max, rep.Latency.P99)
	}
	if rep.Latency.P50 > 150 {
		t.Errorf("p50 %.1f ms; only the requests around the stall should be slow", rep.Latency.P50)
	}
}
