package loadgen

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
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
	// Malformed counts responses that were not valid HTTP/1.1 or HTTP/2 (each closes its
	// connection).
	Malformed int64 `json:"malformed"`
	// Reset counts HTTP/2 streams the server reset (RST_STREAM) before answering.
	Reset int64 `json:"reset"`
}

// Total is the sum of every kind (http/requests/errors).
func (e ErrorCounts) Total() int64 {
	return e.Connect + e.Read + e.Write + e.Timeout + e.Malformed + e.Reset
}

func (e ErrorCounts) String() string {
	return fmt.Sprintf("connect %d, read %d, write %d, timeout %d, malformed %d, reset %d",
		e.Connect, e.Read, e.Write, e.Timeout, e.Malformed, e.Reset)
}

func (e *ErrorCounts) add(o ErrorCounts) {
	e.Connect += o.Connect
	e.Read += o.Read
	e.Write += o.Write
	e.Timeout += o.Timeout
	e.Malformed += o.Malformed
	e.Reset += o.Reset
}

// counters is one worker's tally of the measured window. Only its goroutine writes it; Run reads
// it after the worker has returned.
type counters struct {
	sent      int64
	responses int64
	inWindow  int64 // responses completed by the end of the duration (the RPS window)
	// status counts responses by class: status[1] is 1xx ... status[5] is 5xx.
	status [6]int64
	bytes  int64
	// bad counts responses that are bad whatever their HTTP status (a gRPC status other than OK).
	bad     int64
	unsent  int64 // rate mode: requests due before the end that were never sent
	dropped int64 // requests in flight on a connection when it closed
	errors  ErrorCounts
	// grpc counts gRPC calls by status code (0 OK .. 16 Unauthenticated).
	grpc [17]int64
	// connectError is the first connection failure's message.
	connectError string
	// streamLimit is the lowest MAX_CONCURRENT_STREAMS an HTTP/2 server set below the streams
	// asked for; 0 when none did.
	streamLimit int
}

// noteConnectError keeps the first connection failure's message for the report.
func (c *counters) noteConnectError(err error) {
	if c.connectError == "" {
		c.connectError = err.Error()
	}
}

func (c *counters) add(o *counters) {
	c.sent += o.sent
	c.responses += o.responses
	c.inWindow += o.inWindow
	for i := range c.status {
		c.status[i] += o.status[i]
	}
	c.bytes += o.bytes
	c.bad += o.bad
	c.unsent += o.unsent
	c.dropped += o.dropped
	c.errors.add(o.errors)
	for i := range c.grpc {
		c.grpc[i] += o.grpc[i]
	}
	if c.connectError == "" {
		c.connectError = o.connectError
	}
	if o.streamLimit > 0 && (c.streamLimit == 0 || o.streamLimit < c.streamLimit) {
		c.streamLimit = o.streamLimit
	}
}

// latencyBatch is the number of latencies a worker keeps before adding them to its shard.
const latencyBatch = 512

// shard is a histogram shared by some workers. A histogram per connection would cost ~170 KB
// each; workers buffer latencies instead and add them here in batches. secs holds the same
// latencies per second of the window, at a coarser precision, for the timeline.
type shard struct {
	mu   sync.Mutex
	hist *hdrhistogram.Histogram
	secs []*hdrhistogram.Histogram
	log  *latencyLog // nil unless Options.LatencyLog
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

// secSigFigs is the precision of the per-second histograms: 2 significant digits (1%), about
// 25 KB each against the run histogram's 170 KB.
const secSigFigs = 2

// add records latencies given in microseconds, clamped to the histogram's range, of responses
// completed in second sec of the window.
func (s *shard) add(sec int, us []int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for len(s.secs) <= sec {
		s.secs = append(s.secs, hdrhistogram.New(histMinUs, histMaxUs, secSigFigs))
	}
	for _, v := range us {
		v = min(max(v, 0), histMaxUs)
		_ = s.hist.RecordValue(v) // in range by the clamp
		_ = s.secs[sec].RecordValue(v)
	}
	if s.log != nil {
		s.log.write(us)
	}
}

// latencyLog writes raw latencies for Options.LatencyLog, shared by the shards.
type latencyLog struct {
	mu  sync.Mutex
	w   *bufio.Writer
	buf []byte
	err error // the first write error
}

func newLatencyLog(w io.Writer, shards []*shard) *latencyLog {
	l := &latencyLog{w: bufio.NewWriterSize(w, 64<<10)}
	for _, s := range shards {
		s.log = l
	}
	return l
}

func (l *latencyLog) write(us []int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, v := range us {
		l.buf = strconv.AppendInt(l.buf[:0], min(max(v, 0), histMaxUs), 10)
		l.buf = append(l.buf, '\n')
		if _, err := l.w.Write(l.buf); err != nil && l.err == nil {
			l.err = err
		}
	}
}

// close flushes the log and returns the first error writing it.
func (l *latencyLog) close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.w.Flush(); err != nil && l.err == nil {
		l.err = err
	}
	if l.err != nil {
		return fmt.Errorf("latency log: %w", l.err)
	}
	return nil
}
