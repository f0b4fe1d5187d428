package loadgen

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"os"
	"time"
)

// Connect back-off: the first retry waits minBackoff, doubling up to maxBackoff.
const (
	minBackoff = 10 * time.Millisecond
	maxBackoff = 500 * time.Millisecond
)

// dial opens a connection to cfg's address, over TLS when cfg.tls is set (its handshake
// included, bounded by the timeout).
func (c *runConfig) dial(ctx context.Context) (net.Conn, error) {
	d := net.Dialer{Timeout: time.Duration(c.timeout)}
	nc, err := d.DialContext(ctx, "tcp", c.addr)
	if err != nil || c.tls == nil {
		return nc, err
	}
	tc := tls.Client(nc, c.tls)
	hctx, cancel := context.WithTimeout(ctx, time.Duration(c.timeout))
	defer cancel()
	if err := tc.HandshakeContext(hctx); err != nil {
		nc.Close()
		return nil, fmt.Errorf("TLS handshake with %s: %w", c.addr, err)
	}
	return tc, nil
}

// connect opens the connection, or counts the failure and backs off.
func (w *worker) connect(ctx context.Context) {
	tc, err := w.cfg.dial(ctx)
	if err != nil {
		w.connectFailed(ctx, err, &w.fails)
		return
	}
	w.fails = 0
	if err := w.sys.attach(tc); err != nil {
		tc.Close()
		w.count(&w.st.errors.Connect, w.now())
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.aborted.Load() {
		tc.Close()
		return
	}
	w.nc = tc
}

// backoff waits before a client's next connect attempt after *fails consecutive failures (which
// it counts), at most until the end of the window.
func (c *runConfig) backoff(ctx context.Context, fails *int) {
	d := min(minBackoff<<min(*fails, 10), maxBackoff)
	*fails++
	d = min(d, time.Duration(c.end-int64(time.Since(c.base))))
	if d <= 0 {
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

// abort stops the worker from another goroutine: its current wait returns at once.
func (w *worker) abort() {
	w.aborted.Store(true)
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.nc != nil {
		w.nc.SetDeadline(time.Unix(1, 0))
	}
}

// closeConn closes the connection and forgets its requests in flight and any partial response.
func (w *worker) closeConn() {
	w.mu.Lock()
	nc := w.nc
	w.nc = nil
	w.mu.Unlock()
	if nc == nil {
		return
	}
	nc.Close()
	w.sys.detach()
	w.forget()
}

// forget counts the requests in flight on a connection that closed as dropped, and resets the
// connection's state for the next one.
func (w *worker) forget() {
	if w.recording(w.now()) {
		w.st.dropped += int64(w.fl.len())
	}
	w.fl.clear()
	w.p.reset()
	w.r, w.w, w.deadline, w.closing, w.pending = 0, 0, 0, false, nil
	w.lw = lowWater{off: w.lw.off} // a new socket starts without a mark
}

// probe bounds how long a connection with requests in flight parks without trying a read. A read
// that leaves a response incomplete does not try again before parking (that read would mostly
// return EAGAIN); if the server closed the connection as that data came in, the close is not
// signalled again, and the deadline's wake-up finds it.
const probe = int64(50 * time.Millisecond)

// armDeadline sets the read deadline the next wait needs: the next request's intended time in rate
// mode, else the oldest request's timeout or the probe, whichever comes first. Those are set
// lazily, up to half a probe early, so that a busy connection re-arms its deadline rarely rather
// than per read; a deadline that passes before the timeout only makes the next wait try a read.
func (w *worker) armDeadline(now int64) {
	want, exact := w.deadlineWanted(now)
	if exact {
		if want != w.deadline {
			w.setDeadline(want)
		}
		return
	}
	if w.deadline == 0 || w.deadline > want || w.deadline < want-probe/2 {
		w.setDeadline(want)
	}
}

// deadlineWanted is the deadline the next wait needs (armDeadline); exact when it is rate mode's
// next send, which must not be set lazily.
func (w *worker) deadlineWanted(now int64) (want int64, exact bool) {
	want = w.cfg.end
	if w.fl.len() > 0 {
		want = min(w.fl.front().sent+w.cfg.timeout, now+probe)
	}
	if w.cfg.rate > 0 && w.fl.len() < w.cfg.depth {
		// Only a request that will be sent sets the wake-up: one due in the last sendEarly before
		// the end once did, and its connection then spun on an expired deadline (a RawConn read
		// past its deadline fails before trying the socket) until its last response timed out.
		if next := w.cfg.intended(w.id, w.next); next < w.cfg.end && next-sendEarly < want {
			return max(next-sendEarly, now), true
		}
	}
	return want, false
}

func (w *worker) setDeadline(t int64) {
	w.deadline = t
	w.nc.SetReadDeadline(w.cfg.base.Add(time.Duration(t)))
	if w.aborted.Load() { // abort's deadline may have been replaced: restore it
		w.nc.SetReadDeadline(time.Unix(1, 0))
	}
}

// afterWait handles the error that ended a wait: a deadline (a timeout, or time to send in rate
// mode), an abort, or a failed read. Before a timeout is counted, the socket is read once: a
// generator that was not scheduled for a while may find the response waiting.
func (w *worker) afterWait(err error) {
	if err == nil || w.aborted.Load() {
		return
	}
	now := w.now()
	if !errors.Is(err, os.ErrDeadlineExceeded) {
		w.fail(&w.st.errors.Read, now)
		return
	}
	w.deadline = 0 // expired: the next wait re-arms it
	w.lowWaterStalled()
	if w.fl.len() > 0 && now >= w.fl.front().sent+w.cfg.timeout && !w.sys.readNow() {
		if w.recording(now) {
			w.st.errors.Timeout += int64(w.fl.len())
		}
		w.fl.clear()
		w.closing = true
	}
}
