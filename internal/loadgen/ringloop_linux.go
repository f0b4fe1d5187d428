//go:build linux && !loadgen_portable

package loadgen

import (
	"fmt"
	"time"

	"github.com/crankshaft/crankshaft/internal/uring"
)

// recvBufSize is each provided receive buffer's size.
const recvBufSize = 8 << 10

// maxRingWait bounds one wait for completions.
const maxRingWait = int64(time.Second)

// Operations, in a submission's user data with its connection and the connection's generation
// (a completion for a connection since closed is recognised and dropped).
const (
	opWake = iota + 1
	opConnect
	opConnectTimeout
	opRecv
	opSend
)

// Connection states.
const (
	connIdle = iota
	connConnecting
	connOpen
)

// ringConn is a worker's connection on the ring.
type ringConn struct {
	fd      int
	gen     uint32
	state   uint8
	recv    bool  // a multishot receive is armed
	sending bool  // a send is in flight
	queued  int   // request bytes to send (a send in flight included)
	phase   int   // where in the request the next byte to send is
	retryAt int64 // connect back-off: not before then
	fails   int   // consecutive connect failures
	done    bool
}

// loop submits, waits for completions and handles them until every worker is done or the run
// is aborted. Each wait is bounded by the next connection's deadline and maxRingWait.
func (l *ringLoop) loop() {
	l.check = 0
	for l.live > 0 && !l.aborted.Load() {
		now := l.ws[0].now()
		if now >= l.check {
			l.scan(now)
			continue
		}
		l.bufs.Publish()
		if err := l.ring.Submit(true, min(l.check-now, maxRingWait)); err != nil {
			l.failAll(err)
			return
		}
		l.handle(l.ring.Completions(l.cqes[:0]))
	}
}

// failAll ends the run's connections after the ring failed: counted as read errors.
func (l *ringLoop) failAll(err error) {
	w := l.ws[0]
	w.st.noteConnectError(fmt.Errorf("io_uring: %w", err))
	for i, w := range l.ws {
		if !l.cs[i].done {
			w.count(&w.st.errors.Read, w.now())
			l.closeConn(i)
			l.finish(i)
		}
	}
}

// handle dispatches a batch of completions, giving their receive buffers back once read.
func (l *ringLoop) handle(cqes []uring.CQE) {
	l.pending -= l.bufs.Handle(cqes, l.completeFn)
}

func (l *ringLoop) complete(c uring.CQE) {
	i, gen, op := uring.Untag(c.UserData)
	if op == opWake || op == opConnectTimeout {
		return
	}
	cn := &l.cs[i]
	if !uring.SameGen(gen, cn.gen) || cn.done {
		return // a connection since closed
	}
	now := l.ws[i].now()
	switch op {
	case opConnect:
		l.connected(i, c.Res, now)
	case opRecv:
		l.received(i, c, now)
	case opSend:
		l.sent(i, c.Res, now)
	}
}
