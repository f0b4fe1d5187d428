//go:build linux

package httpserver

import (
	"log/slog"
	"time"

	"golang.org/x/sys/unix"

	"github.com/crankshaft/crankshaft/internal/uring"
)

// received handles a completion of connection i's multishot receive.
func (r *ring) received(i int, e uring.CQE) {
	rc := &r.conns[i]
	if e.Last() {
		rc.recv = false
	}
	switch {
	case e.Res > 0 && !rc.c.closeAfter:
		r.input(i, r.bufs.Buf(e.Buffer())[:e.Res])
	case e.Res > 0, e.Res == -int32(unix.ENOBUFS), e.Res == -int32(unix.ECANCELED) && rc.c.closeAfter:
		// Input after a closing answer is dropped (the linger drains the rest); a receive that
		// ran out of buffers is armed again below, after they were given back.
	default: // 0: the client closed; or an error
		if e.Res < 0 {
			r.srv.log.Debug("receive", slog.Uint64("conn", rc.c.id), slog.Any("err", unix.Errno(-e.Res)))
		}
		r.close(i)
		return
	}
	if rc.c == nil || rc.recv {
		return // closed meanwhile, or the receive goes on
	}
	if rc.c.closeAfter {
		r.flush(i) // lingers unless the closing answer is still being sent
		return
	}
	r.arm(i)
}

// input copies data into connection i's read buffer piece by piece, answers what is complete
// and sends the responses.
func (r *ring) input(i int, data []byte) {
	c := r.conns[i].c
	for len(data) > 0 && !c.closeAfter {
		n := copy(c.buf[c.w:], data)
		if n == 0 { // unreachable: a full buffer without a whole head is answered 431
			r.srv.log.Debug("read buffer full", slog.Uint64("conn", c.id))
			r.close(i)
			return
		}
		c.w += n
		data = data[n:]
		c.process()
		c.compact()
	}
	r.flush(i)
}

// flush sends what connection i's responses gathered, unless a send is in flight (its
// completion sends them), and closes once the closing answer went.
func (r *ring) flush(i int) {
	rc := &r.conns[i]
	c := rc.c
	switch {
	case rc.sending:
		return
	case len(c.out) > 0:
		rc.flight, c.out = c.out, rc.flight[:0]
		rc.sent = 0
		r.send(i)
	case c.closeAfter:
		r.closing(i)
	}
}

func (r *ring) send(i int) {
	rc := &r.conns[i]
	r.r.Next().Send(rc.fd, rc.flight[rc.sent:], uring.Tag(i, rc.gen, ringOpSend))
	rc.sending = true
	r.pending++
}

// sent handles connection i's send completion: the rest of a short send, then what gathered.
func (r *ring) sent(i int, res int32) {
	rc := &r.conns[i]
	rc.sending = false
	if res < 0 {
		r.srv.log.Debug("send", slog.Uint64("conn", rc.c.id), slog.Any("err", unix.Errno(-res)))
		r.close(i)
		return
	}
	if rc.sent += int(res); rc.sent < len(rc.flight) {
		r.send(i)
		return
	}
	rc.flight = rc.flight[:0]
	r.flush(i)
}

// closing ends connection i after its closing answer went: its receive is cancelled first (the
// ring holds the socket until it ends), then the connection lingers.
func (r *ring) closing(i int) {
	rc := &r.conns[i]
	if !rc.recv {
		r.linger(i)
		return
	}
	if !rc.cancelled {
		r.r.Next().Cancel(uring.Tag(i, rc.gen, ringOpRecv), uring.Tag(0, 0, ringOpCancel))
		r.pending++
		rc.cancelled = true
	}
}

// linger hands connection i's socket to a goroutine that half-closes and drains it.
func (r *ring) linger(i int) {
	rc := &r.conns[i]
	fd, buf := rc.fd, rc.c.buf
	r.release(i)
	lingerFD(r.ctx, r.wg, fd, buf)
}

// close closes connection i's socket; an armed receive is woken by the shutdown and its
// completion, now stale, is dropped.
func (r *ring) close(i int) {
	rc := &r.conns[i]
	if rc.recv {
		unix.Shutdown(rc.fd, unix.SHUT_RDWR)
	}
	unix.Close(rc.fd)
	r.release(i)
}

// release frees slot i for another connection, under a new generation.
func (r *ring) release(i int) {
	r.conns[i] = ringConn{gen: r.conns[i].gen + 1, fd: -1}
	r.free = append(r.free, i)
}

// shutdown closes every connection of the ring, cancels what is in flight, waits for it (at
// most a second) and frees the ring. Memory the kernel may still write is kept rather than
// freed when the wait runs out.
func (r *ring) shutdown() {
	r.mu.Lock()
	r.closed = true
	for _, fd := range r.added {
		unix.Close(fd)
	}
	r.added = nil
	r.mu.Unlock()
	for i := range r.conns {
		if r.conns[i].c != nil {
			r.close(i)
		}
	}
	r.pending = r.r.CancelAll(r.pending, time.Second)
	unix.Close(r.efd)
	if r.pending > 0 {
		r.srv.log.Warn("io_uring requests still in flight after cancelling; leaving the ring's memory mapped", slog.Int("pending", r.pending))
		r.r.Close()
		return
	}
	r.bufs.Close()
	r.r.Close()
}
