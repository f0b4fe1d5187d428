//go:build linux && !loadgen_portable

package loadgen

import (
	"fmt"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/crankshaft/crankshaft/internal/uring"
)

// scan looks at every connection: it connects those that need it, finishes the workers that are
// done, and handles passed deadlines (timeouts, the probe, rate mode's next send). It sets when
// the next look is due.
func (l *ringLoop) scan(now int64) {
	l.check = now + maxRingWait
	polled := false
	for i, w := range l.ws {
		c := &l.cs[i]
		switch {
		case c.done:
			continue
		case c.state == connIdle && w.finished(now):
			l.finish(i)
			continue
		case c.state == connIdle && c.retryAt <= now:
			l.connect(i, now)
		case c.state == connOpen && w.deadline <= now:
			if !polled && w.fl.len() > 0 && now >= w.fl.front().sent+w.cfg.timeout {
				// Before a timeout is counted, take what came in meanwhile (the generator may
				// not have been scheduled for a while), once per scan.
				polled = true
				l.poll()
			}
			if c.state == connOpen && !c.done && w.deadline <= now {
				l.expired(i, now)
			}
		}
		if c.done {
			continue
		}
		switch c.state {
		case connIdle:
			l.check = min(l.check, c.retryAt)
		case connOpen:
			l.check = min(l.check, w.deadline)
		}
	}
}

// poll submits what is prepared and handles the completions ready, without waiting.
func (l *ringLoop) poll() {
	l.bufs.Publish()
	l.ring.Submit(false, 0)
	l.handle(l.ring.Completions(l.cqes[:0]))
}

// expired handles a connection whose deadline passed: its oldest request timed out, or the
// probe passed (a low-water mark may hold a short batch back), or rate mode's next send is due.
func (l *ringLoop) expired(i int, now int64) {
	w := l.ws[i]
	w.deadline = 0
	w.lowWaterStalled()
	if w.fl.len() > 0 && now >= w.fl.front().sent+w.cfg.timeout {
		if w.recording(now) {
			w.st.errors.Timeout += int64(w.fl.len())
		}
		w.fl.clear()
		w.closing = true
	}
	l.service(i, now)
}

// connect opens a socket and submits its connect, bounded by the timeout.
func (l *ringLoop) connect(i int, now int64) {
	w, c := l.ws[i], &l.cs[i]
	if l.saErr != nil {
		l.connectFailed(i, l.saErr, now)
		return
	}
	fd, err := unix.Socket(l.sa.family, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		l.connectFailed(i, fmt.Errorf("socket: %w", err), now)
		return
	}
	unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1) // as Go's net sets it
	c.fd, c.state = fd, connConnecting
	w.sys.fd = fd // for the low-water mark
	if l.ring.Pending()+2 > l.sq {
		l.ring.Submit(false, 0) // the connect and its timeout go in one submission
	}
	e := l.ring.Next()
	e.Connect(fd, unsafe.Pointer(&l.sa.raw[0]), l.sa.len, uring.Tag(i, c.gen, opConnect))
	e.Link()
	l.ring.Next().LinkTimeout(&l.connTO, uring.Tag(i, c.gen, opConnectTimeout))
	l.pending += 2
}

// connected handles a connect's completion.
func (l *ringLoop) connected(i int, res int32, now int64) {
	c := &l.cs[i]
	if res < 0 {
		err := syscall.Errno(-res)
		if err == unix.ECANCELED {
			err = unix.ETIMEDOUT
		}
		l.closeConn(i)
		l.connectFailed(i, fmt.Errorf("dial tcp %s: connect: %w", l.cfg.addr, err), now)
		return
	}
	c.state, c.fails = connOpen, 0
	l.armRecv(i)
	l.service(i, now)
}

// connectFailed counts a failed connect (unless the run was aborted), keeps its message if it is
// the first, and sets the back-off before the next attempt.
func (l *ringLoop) connectFailed(i int, err error, now int64) {
	w, c := l.ws[i], &l.cs[i]
	if l.aborted.Load() {
		return
	}
	w.count(&w.st.errors.Connect, now)
	w.st.noteConnectError(err)
	d := min(int64(minBackoff)<<min(c.fails, 10), int64(maxBackoff))
	c.fails++
	c.retryAt = max(now, min(now+d, w.cfg.end)) // as runConfig.backoff: not past the end
	l.check = min(l.check, c.retryAt)
}

func (l *ringLoop) armRecv(i int) {
	c := &l.cs[i]
	l.ring.Next().RecvMultishot(c.fd, 0, uring.Tag(i, c.gen, opRecv))
	c.recv = true
	l.pending++
}

// received handles a receive's completion: bytes, the peer's close, or an error.
func (l *ringLoop) received(i int, cqe uring.CQE, now int64) {
	w, c := l.ws[i], &l.cs[i]
	if cqe.Last() {
		c.recv = false
	}
	switch {
	case cqe.Res == -int32(unix.ENOBUFS):
		// Every buffer was taken: they are given back with this batch; receive again.
	case cqe.Res < 0:
		w.received(0, syscall.Errno(-cqe.Res), now)
	case cqe.Res == 0:
		w.received(0, nil, now)
	default:
		data := l.bufs.Buf(cqe.Buffer())[:cqe.Res]
		for len(data) > 0 && !w.closing {
			n := copy(w.buf[w.w:], data)
			if n == 0 { // cannot happen: consume leaves minFree
				w.fail(&w.st.errors.Malformed, now)
				break
			}
			data = data[n:]
			w.received(n, nil, now)
		}
	}
	if !c.recv && !w.closing && c.state == connOpen {
		l.armRecv(i)
	}
	l.service(i, now)
}

// sent handles a send's completion: what was left is sent next.
func (l *ringLoop) sent(i int, res int32, now int64) {
	w, c := l.ws[i], &l.cs[i]
	c.sending = false
	if res <= 0 {
		w.fail(&w.st.errors.Write, now)
		l.service(i, now)
		return
	}
	c.queued -= int(res)
	c.phase = (c.phase + int(res)) % w.cfg.reqLen
	if c.queued > 0 {
		l.send(i)
	}
}

// send submits the next part of the connection's queued requests.
func (l *ringLoop) send(i int) {
	c := &l.cs[i]
	n := min(c.queued, len(l.out)-c.phase)
	l.ring.Next().Send(c.fd, l.out[c.phase:c.phase+n], uring.Tag(i, c.gen, opSend))
	c.sending = true
	l.pending++
}

// service sends what is due on an open connection, then closes it if it must, finishes it if it
// is done, or sets its next deadline.
func (l *ringLoop) service(i int, now int64) {
	w, c := l.ws[i], &l.cs[i]
	if c.state == connOpen && !w.closing {
		if k := len(w.takeDue(now)); k > 0 {
			c.queued += k
			if !c.sending {
				l.send(i)
			}
		}
	}
	if w.closing {
		l.closeConn(i)
	}
	if c.state != connOpen {
		if c.state == connIdle && w.finished(now) {
			l.finish(i)
		} else {
			l.check = min(l.check, c.retryAt)
		}
		return
	}
	if w.fl.len() == 0 && w.finished(now) {
		l.closeConn(i)
		l.finish(i)
		return
	}
	w.deadline, _ = w.deadlineWanted(now)
	l.check = min(l.check, w.deadline)
}

// closeConn shuts the connection down, which ends its receive (the ring holds the socket until
// then), and resets its state; its requests in flight count as dropped.
func (l *ringLoop) closeConn(i int) {
	w, c := l.ws[i], &l.cs[i]
	if c.fd >= 0 {
		unix.Shutdown(c.fd, unix.SHUT_RDWR)
		unix.Close(c.fd)
		w.forget()
	}
	w.sys.fd = -1
	c.fd, c.state, c.recv, c.sending, c.queued, c.phase = -1, connIdle, false, false, 0, 0
	c.gen++
}

// finish ends a worker: its connection is closed.
func (l *ringLoop) finish(i int) {
	l.cs[i].done = true
	l.ws[i].aborted.Store(l.aborted.Load())
	l.ws[i].wrapUp()
	l.live--
}
