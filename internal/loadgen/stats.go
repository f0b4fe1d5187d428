package loadgen

import (
	"fmt"
	"sync"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// Histogram range: latencies are recorded in microseconds from 1 us to one hour, 3 significant digits.
const (
	histMinUs   = 1
	histMaxUs   = int64(time.Hour / time.Microsecond)
	histSigFigs = 3
)

// ErrorCounts are the failures of a run, by kind.
type ErrorCounts struct {
	Connect int64 `json:"connect"`
	Read    int64 `json:"read"`
	Write   int64 `json:"write"`
	// Timeout counts requests that got no response within Options.Timeout.
	Timeout int64 `json:"timeout"`
	// Malformed counts responses that were not valid HTTP/1.1 (each closes its connection).
	Malformed int64 `json:"malformed"`
}

// Total is the sum of every kind (http/requests/errors).
func (e ErrorCounts) Total() int64 {
	return e.Connect + e.Read + e.Write + e.Timeout + e.Malformed
}

func (e ErrorCounts) String() string {
	return fmt.Sprintf("connect %d, read %d, write %d, timeout %d, malformed %d",
		e.Connect, e.Read, e.Write, e.Timeout, e.Malformed)
}

func (e *ErrorCounts) add(o ErrorCounts) {
	e.Connect += o.Connect
	e.Read += o.Read
	e.Write += o.Write
	e.Timeout += o.Timeout
	e.Malformed += o.Malformed
}

// counters is one worker's tally of the measured window. Only its goroutine writes it; Run reads
// it after the worker has returned.
type counters struct {
	sent      int64
	responses int64
	inWindow  int64 // responses completed by the end of the duration (the RPS window)
	// status counts responses by class: status[1] is 1xx ... status[5] is 5xx.
	status  [6]int64
	bytes   int64
	unsent  int64 // rate mode: requests due before the end that were never sent
	dropped int64 // requests in flight on a connection when it closed
	errors  ErrorCounts
}

func (c *counters) add(o *counters) {
	c.sent += o.sent
	c.responses += o.responses
	c.inWindow += o.inWindow
	for i := range c.status {
		c.status[i] += o.status[i]
	}
	c.bytes += o.bytes
	c.unsent += o.unsent
	c.dropped += o.dropped
	c.errors.add(o.errors)
}

// latencyBatch is the number of latencies a worker keeps before adding them to its shard.
const latencyBatch = 512

// shard is a histogram shared by some workers. A histogram per connection would cost ~170 KB
// each; workers buffer latencies instead and add them here in batches.
type shard struct {
	mu   sync.Mutex
	hist *hdrhistogram.Histogram
}

func newShards(n int) []*shard {
	s := make([]*shard, n)
	for i := range s {
		s[i] = &shard{hist: newHistogram()}
	}
	return s
}

func newHistogram() *hdrhistogram.Histogram {
	return hdrhistogram.New(histMinUs, histMaxUs, histSigFigs)
}

// add records latencies given in microseconds, clamped to the histogram's range.
func (s *shard) add(us []int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, v := range us {
		_ = s.hist.RecordValue(min(max(v, 0), histMaxUs)) // in range by the clamp
	}
}
