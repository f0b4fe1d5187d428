package loadgen

import (
	"context"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// worker drives one connection: it writes requests, reads and parses responses, and reconnects
// after errors. Only its own goroutine touches its fields, except nc under mu and aborted.
type worker struct {
	recorder // its cfg is the run's
	id       int

	mu      sync.Mutex // guards nc against abort
	nc      net.Conn
	aborted atomic.Bool
	sys     sysConn

	buf      []byte
	r, w     int // unparsed bytes are buf[r:w]
	p        respParser
	fl       flights
	next     int64  // rate mode: schedule index of the next request
	pending  []byte // request bytes a short write left unsent
	deadline int64  // read deadline armed on nc; 0 when none
	closing  bool   // the connection must be closed and reopened
	fails    int    // consecutive connect failures, for back-off
	finish   int64  // when the worker stopped
	waited   bool   // the current batch has had its coalescing wait
	reads    int    // reads that brought bytes of the current batch
	trickled bool   // the last batch came in more than one read
	lw       lowWater
}

func (w *worker) tally() *counters { return &w.st }
func (w *worker) stoppedAt() int64 { return w.finish }

func newWorker(cfg *runConfig, id int, sh *shard) *worker {
	w := &worker{recorder: newRecorder(cfg, sh), id: id,
		buf: make([]byte, cfg.bufSize), fl: newFlights(cfg.depth)}
	w.p.headOnly = cfg.headOnly
	w.sys.init(w)
	return w
}

// run sends and receives until the end of the window, then drains the requests in flight.
func (w *worker) run(ctx context.Context) {
	defer func() {
		w.closeConn()
		w.wrapUp()
	}()
	for !w.aborted.Load() {
		now := w.now()
		if w.nc == nil {
			if w.finished(now) {
				return
			}
			w.connect(ctx)
			continue
		}
		if w.writePending(now) {
			if w.fl.len() == 0 && w.finished(now) {
				return
			}
			w.armDeadline(now)
			w.afterWait(w.sys.wait())
		}
		if w.closing {
			w.closeConn()
		}
	}
}

// wrapUp records what is left when the worker stops, its connection closed.
func (w *worker) wrapUp() {
	w.flushLatencies()
	w.finish = w.now()
	if w.cfg.rate > 0 && !w.aborted.Load() {
		w.st.unsent = max(0, w.cfg.scheduledBefore(w.id, w.cfg.end)-w.next)
	}
}

// writePending writes what a short write left and the requests now due: without blocking where
// the socket takes it all, else waiting for room. It returns false when the connection failed.
func (w *worker) writePending(now int64) bool {
	if len(w.pending) == 0 {
		w.pending = w.takeDue(now)
	}
	if len(w.pending) == 0 {
		return true
	}
	rest, err := w.sys.write(w.pending)
	if err == nil && len(rest) > 0 {
		w.nc.SetWriteDeadline(w.cfg.base.Add(time.Duration(now + w.cfg.timeout)))
		if w.aborted.Load() { // do not replace abort's deadline
			w.nc.SetWriteDeadline(time.Unix(1, 0))
		}
		_, err = w.nc.Write(rest)
	}
	w.pending = nil
	if err != nil {
		w.fail(&w.st.errors.Write, now)
		return false
	}
	return true
}

// takeDue returns the bytes of the requests to send now and records them as in flight. Without a
// rate, a connection sends Pipeline requests when it has none in flight; with one, it sends those
// whose intended time has come (or comes within sendAhead), keeping at most Pipeline in flight. A
// request's latency counts from its intended time, or from when it left if that was earlier.
func (w *worker) takeDue(now int64) []byte {
	if now >= w.cfg.sendUntil {
		return nil
	}
	k := 0
	if w.cfg.rate == 0 {
		if w.fl.len() > 0 {
			return nil
		}
		w.waited, w.trickled, w.reads = false, w.reads > 1, 0
		w.batchDone()
		for ; k < w.cfg.depth; k++ {
			w.fl.push(flight{origin: now, sent: now})
		}
	} else {
		for w.fl.len() < w.cfg.depth {
			t := w.cfg.intended(w.id, w.next)
			if t > now+sendAhead || t >= w.cfg.end {
				break
			}
			w.fl.push(flight{origin: min(t, now), sent: now})
			w.next++
			k++
		}
	}
	if w.recording(now) {
		w.st.sent += int64(k)
	}
	return w.cfg.batch[:k*w.cfg.reqLen]
}

// finished reports that the worker will send no more requests.
func (w *worker) finished(now int64) bool {
	return now >= w.cfg.sendUntil || (w.cfg.rate > 0 && w.cfg.intended(w.id, w.next) >= w.cfg.end)
}

// step handles the outcome of one read and sends what is then due. leave is true when the
// worker must leave its wait: the connection is closing, a write was short, or the run is over.
// again is true when the caller must read again before parking: when the read filled the buffer
// (full), and in rate mode, where an idle connection must see a close before it sends again.
// Readiness is edge-triggered: data or a close that came in with the read just made is not
// signalled again. A closed-loop connection parks at once; a close it missed is found by the
// next write (answered with a reset, which is signalled) or by the probe deadline.
func (w *worker) step(n int, err error, full bool) (leave, again bool) {
	now := w.now()
	if !w.received(n, err, now) {
		return true, false
	}
	again = full || w.cfg.rate > 0
	if p := w.takeDue(now); len(p) > 0 {
		rest, err := w.sys.write(p)
		if err != nil {
			w.fail(&w.st.errors.Write, now)
			return true, false
		}
		if len(rest) > 0 {
			w.pending = rest
			return true, false
		}
	}
	if w.fl.len() == 0 && w.finished(now) {
		return true, false
	}
	w.armDeadline(now)
	return false, again
}

// Coalescing of pipelined responses (see coalesceWait).
const (
	coalesceShare = 20 // the wait is at most this fraction of the batch's time so far
	minCoalesce   = int64(20 * time.Microsecond)
	maxCoalesce   = int64(200 * time.Microsecond)
)

// coalesceWait returns how long to wait before reading, or 0. Servers that write each pipelined
// response on its own (nginx) deliver a batch in a trickle of small segments; reading each as it
// comes costs a wake-up and a read, with its ACK, per segment. So a closed-loop connection waits
// once per batch, for a twentieth of the time the batch has taken so far (20 us to 200 us), before
// it reads: when woken for a batch if the previous one trickled in (woken), else when a read left
// the batch partly answered. That delays the responses that arrive meanwhile by at most a
// twentieth of their latency.
func (w *worker) coalesceWait(woken bool) int64 {
	if w.cfg.rate > 0 || w.cfg.depth == 1 || w.waited || w.fl.len() == 0 {
		return 0
	}
	if partial := w.fl.len() < w.cfg.depth; !partial && !(woken && w.trickled) {
		return 0
	}
	d := min((w.now()-w.fl.front().sent)/coalesceShare, maxCoalesce)
	if d < minCoalesce {
		return 0
	}
	w.waited = true
	return d
}

// fail counts an error and marks the connection for closing.
func (w *worker) fail(kind *int64, now int64) {
	w.count(kind, now)
	w.closing = true
}
