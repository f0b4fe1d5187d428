package loadgen

import (
	"crypto/tls"
	"time"
)

// runConfig is what every worker of a run shares. It is read-only once the run starts; times are
// nanoseconds since base (monotonic).
type runConfig struct {
	addr     string
	tls      *tls.Config // nil: cleartext
	batch    []byte      // Pipeline copies of the request
	reqLen   int
	depth    int
	streams  int // HTTP/2: requests in flight per connection
	timeout  int64
	conns    int64
	rate     int64 // total requests per second; 0: closed loop
	headOnly bool
	bufSize  int
	base     time.Time
	// measureFrom is the end of the warm-up: responses and errors are recorded from then on.
	measureFrom int64
	// end is the end of the measured window: no request is sent after it, except in rate mode
	// requests intended before it, until sendUntil (the timers' slack).
	end, sendUntil int64
	// gate spaces the HTTP/2 clients' coalescing waits (the one field written during the run,
	// atomically); nil: no waits.
	gate *wakeGate
	// io is the HTTP/1.1 connections' I/O, IOUring or IOEpoll; ioFallback why auto took epoll.
	io, ioFallback string
}

// sendEarly is how long before a request's intended time rate mode wakes its connection. The
// runtime's timers wake an idle thread up to a millisecond late; waking a millisecond early keeps
// that slack out of the latencies (a request that leaves early is measured from when it left).
const sendEarly = int64(time.Millisecond)

// sendAhead is how far ahead of now a woken connection sends the requests due: every request due
// within it leaves at once. So a connection wakes at most once per sendAhead-sendEarly (1 ms) and
// writes all its requests of that millisecond in one system call, as the closed loop writes its
// pipeline. Waking for each request on its own (sendAhead = sendEarly) cost a timer, a wake-up, a
// deadline and a write per request, several times the closed loop's CPU per request: the
// generator, not the server, then set the capacity (docs/CAPACITY.md).
const sendAhead = 2 * sendEarly

// lateGrace is how long after the end rate mode still sends requests that were due before it:
// the runtime's timers wake up to a millisecond late.
const lateGrace = int64(10 * time.Millisecond)

// intended is the time rate mode sends worker id's k-th request: the run's requests are spread
// evenly over time and handed to the connections in turn, so request number id + k*conns of the
// whole run is due at (id + k*conns)/rate seconds.
func (c *runConfig) intended(id int, k int64) int64 {
	n := int64(id) + k*c.conns
	return n/c.rate*int64(time.Second) + n%c.rate*int64(time.Second)/c.rate
}

// scheduledBefore is how many of worker id's requests are due before t (rate mode).
func (c *runConfig) scheduledBefore(id int, t int64) int64 {
	lo, hi := int64(0), int64(1)
	for c.intended(id, hi) < t {
		lo, hi = hi, hi*2
	}
	for lo < hi { // the first k with intended(k) >= t
		mid := lo + (hi-lo)/2
		if c.intended(id, mid) < t {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}

// flight is a request on the wire: origin is where its latency is measured from (its send time,
// or its intended send time in rate mode); sent is when it was written.
type flight struct{ origin, sent int64 }

// flights is a fixed-size FIFO of the requests in flight on one connection.
type flights struct {
	buf     []flight
	head, n int
}

func newFlights(capacity int) flights { return flights{buf: make([]flight, capacity)} }

func (f *flights) len() int      { return f.n }
func (f *flights) front() flight { return f.buf[f.head] }
func (f *flights) clear()        { f.head, f.n = 0, 0 }
func (f *flights) push(x flight) {
	i := f.head + f.n
	if i >= len(f.buf) {
		i -= len(f.buf)
	}
	f.buf[i] = x
	f.n++
}

func (f *flights) pop() flight {
	x := f.buf[f.head]
	f.head++
	if f.head == len(f.buf) {
		f.head = 0
	}
	f.n--
	return x
}
