//go:build linux

package httpserver

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The Linux event-loop path (Config.EventLoops, no Pool). Accepted TCP connections are handed to one
// of GOMAXPROCS loops, each an epoll set of non-blocking sockets served by one goroutine: it asks
// epoll (level-triggered) which sockets are readable, reads each once, parses and answers what
// arrived and writes the responses at once. A connection so costs one read and one write per
// exchange and a share of one epoll_wait, where a goroutine per connection reads again after each
// response (EAGAIN) and parks in the netpoller. An idle loop parks in the netpoller on its epoll
// descriptor. Connection: close hands the socket to a goroutine that lingers as lingerClose does.

// loopsApply says whether Serve can hand connections to event loops.
const loopsApply = true

const loopEvents = 128

// loop is one epoll set and the connections it serves.
type loop struct {
	srv    *Server
	ctx    context.Context
	wg     *sync.WaitGroup // Serve's: lingering closes join it
	epfd   int
	ef     *os.File // epfd, pollable: an idle loop parks in the netpoller on it
	rc     syscall.RawConn
	events []unix.EpollEvent
	conns  []*conn // by descriptor; owned by the loop's goroutine
	idleFn func(uintptr) bool
	nready int
	stop   atomic.Bool

	mu     sync.Mutex
	added  map[int32]*conn // handed over by Serve, not yet seen by the loop
	closed bool
}

// spread is the event loops of one Serve call (epoll loops or io_uring rings): it hands the
// accepted connections to them in turn.
type spread[L interface{ add(fd int) }] struct {
	all  []L
	next atomic.Uint32
}

// loops is the set of epoll event loops of one Serve call.
type loops = spread[*loop]

// startLoops starts n event loops that run until ctx ends; wg waits for them.
func (s *Server) startLoops(ctx context.Context, wg *sync.WaitGroup, n int) (*loops, error) {
	ls := &loops{}
	for range n {
		l, err := newLoop(s, ctx, wg)
		if err != nil {
			for _, l := range ls.all {
				l.stop.Store(true)
				l.shutdown()
			}
			return nil, err
		}
		ls.all = append(ls.all, l)
	}
	for _, l := range ls.all {
		stop := context.AfterFunc(ctx, func() {
			l.stop.Store(true)
			_ = l.ef.SetReadDeadline(time.Unix(1, 0)) // wakes a parked loop
		})
		wg.Go(func() {
			defer stop()
			l.run()
		})
	}
	return ls, nil
}

func newLoop(s *Server, ctx context.Context, wg *sync.WaitGroup) (*loop, error) {
	epfd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return nil, os.NewSyscallError("epoll_create1", err)
	}
	if err := unix.SetNonblock(epfd, true); err != nil {
		unix.Close(epfd)
		return nil, os.NewSyscallError("fcntl", err)
	}
	ef := os.NewFile(uintptr(epfd), "epoll")
	rc, err := ef.SyscallConn()
	if err != nil {
		ef.Close()
		return nil, err
	}
	l := &loop{srv: s, ctx: ctx, wg: wg, epfd: epfd, ef: ef, rc: rc,
		events: make([]unix.EpollEvent, loopEvents), added: map[int32]*conn{}}
	l.idleFn = func(uintptr) bool {
		l.nready = l.poll()
		return l.nready > 0 || l.stop.Load()
	}
	return l, nil
}

// handoff gives nc's socket to the next loop. It returns false when nc is not a TCP connection
// or its socket could not be taken over; nc is then still open and the caller serves it.
func (sp *spread[L]) handoff(nc net.Conn) bool {
	fd, ok := takeFD(nc)
	if !ok {
		return false
	}
	sp.all[int(sp.next.Add(1))%len(sp.all)].add(fd)
	return true
}

// takeFD takes a TCP connection's socket from the runtime: it returns a duplicate descriptor
// (non-blocking, as the runtime's) and closes nc. It returns false when nc is not a TCP
// connection or its socket could not be duplicated; nc is then still open.
func takeFD(nc net.Conn) (int, bool) {
	tc, ok := nc.(*net.TCPConn)
	if !ok {
		return -1, false
	}
	rc, err := tc.SyscallConn()
	if err != nil {
		return -1, false
	}
	fd := -1
	if err := rc.Control(func(f uintptr) {
		fd, err = unix.FcntlInt(f, unix.F_DUPFD_CLOEXEC, 0) // shares O_NONBLOCK and TCP_NODELAY
	}); err != nil || fd < 0 {
		return -1, false
	}
	nc.Close() // the duplicate keeps the socket open
	return fd, true
}

// add registers a connection's socket with the loop, or closes it when the loop has stopped.
func (l *loop) add(fd int) {
	c := l.srv.newConn(nil)
	c.fd = fd
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		unix.Close(fd)
		return
	}
	defer l.mu.Unlock() // held across epoll_ctl, so that shutdown cannot close fd meanwhile
	ev := unix.EpollEvent{Events: unix.EPOLLIN | unix.EPOLLRDHUP, Fd: int32(fd)}
	if err := unix.EpollCtl(l.epfd, unix.EPOLL_CTL_ADD, fd, &ev); err != nil {
		l.srv.log.Debug("epoll add", slog.Uint64("conn", c.id), slog.Any("err", err))
		unix.Close(fd)
		return
	}
	l.added[int32(fd)] = c
}

// adopt moves the connections handed over since the last call into the loop's own set.
func (l *loop) adopt() {
	l.mu.Lock()
	for fd, c := range l.added {
		if int(fd) >= len(l.conns) {
			l.conns = append(l.conns, make([]*conn, int(fd)+1-len(l.conns))...)
		}
		l.conns[fd] = c
		delete(l.added, fd)
	}
	l.mu.Unlock()
}

// yieldEvery is how long a loop serves without giving the scheduler a turn (yield). Its system
// calls are raw (no entersyscall), so a loop that always finds work never enters the scheduler,
// and the other loops on its processor, readied behind it, wait until an asynchronous preemption
// happens to land in Go code: the plaintext app's two loops on two cores (crank load -c 32 -p 128
// on one of them) kept one thread busy and served requests up to 0.3 to 1 s late; yielding, 6 to
// 14 ms (apps/plaintext's TestLoopsAnswerEveryConnection).
const yieldEvery = time.Millisecond

func (l *loop) run() {
	defer l.shutdown()
	last := time.Now()
	for !l.stop.Load() {
		if now := time.Now(); now.Sub(last) >= yieldEvery {
			runtime.Gosched()
			last = now
		}
		n := l.poll()
		if n == 0 {
			if err := l.rc.Read(l.idleFn); err != nil {
				if !errors.Is(err, os.ErrDeadlineExceeded) {
					l.srv.log.Error("event loop wait", slog.Any("err", err))
				}
				return
			}
			n = l.nready
		}
		for i := range n {
			ev := &l.events[i]
			c := l.conn(ev.Fd)
			if c == nil {
				l.adopt()
				if c = l.conn(ev.Fd); c == nil {
					continue
				}
			}
			l.serve(c, ev.Events)
		}
	}
}

// conn returns the loop's connection on fd, nil when it has none.
func (l *loop) conn(fd int32) *conn {
	if int(fd) < len(l.conns) {
		return l.conns[fd]
	}
	return nil
}

// poll returns how many sockets are ready, without waiting.
func (l *loop) poll() int {
	r, _, errno := unix.RawSyscall6(unix.SYS_EPOLL_PWAIT, uintptr(l.epfd),
		uintptr(unsafe.Pointer(&l.events[0])), uintptr(len(l.events)), 0, 0, 0)
	if errno != 0 {
		return 0 // EINTR; a broken epoll set shows as the netpoller's error
	}
	return int(r)
}

// serve handles one readiness event of c.
func (l *loop) serve(c *conn, events uint32) {
	if len(c.out) > 0 { // waiting to write the rest of a response
		if !l.flush(c) {
			return
		}
		l.watch(c, unix.EPOLLIN|unix.EPOLLRDHUP)
		l.afterWrite(c)
		return
	}
	n, errno := rawIO(unix.SYS_READ, c.fd, c.buf[c.w:])
	switch {
	case errno == unix.EAGAIN || errno == unix.EINTR:
		return
	case errno != 0:
		l.srv.log.Debug("read", slog.Uint64("conn", c.id), slog.Any("err", errno))
		l.close(c)
		return
	case n == 0:
		l.close(c)
		return
	}
	c.w += n
	c.process()
	if len(c.out) > 0 && !l.flush(c) {
		if c.fd >= 0 {
			l.watch(c, unix.EPOLLOUT)
		}
		return
	}
	l.afterWrite(c)
}

// afterWrite makes room for the next input and closes the connection when the last response
// asked for it.
func (l *loop) afterWrite(c *conn) {
	c.compact()
	if c.closeAfter {
		l.linger(c)
	}
}

// flush writes c.out; it returns true when all of it went (the socket may be closed on error).
func (l *loop) flush(c *conn) bool {
	p := c.out
	for len(p) > 0 {
		n, errno := rawIO(unix.SYS_WRITE, c.fd, p)
		switch errno {
		case 0:
			p = p[n:]
			continue
		case unix.EINTR:
			continue
		case unix.EAGAIN:
			c.out = c.out[:copy(c.out, p)]
			return false
		}
		l.srv.log.Debug("write", slog.Uint64("conn", c.id), slog.Any("err", errno))
		l.close(c)
		return false
	}
	c.out = c.out[:0]
	return true
}

// watch sets the events c's socket is watched for.
func (l *loop) watch(c *conn, events uint32) {
	ev := unix.EpollEvent{Events: events, Fd: int32(c.fd)}
	if err := unix.EpollCtl(l.epfd, unix.EPOLL_CTL_MOD, c.fd, &ev); err != nil {
		l.srv.log.Debug("epoll mod", slog.Uint64("conn", c.id), slog.Any("err", err))
		l.close(c)
	}
}

// forget takes c's socket out of the loop; the caller then owns it.
func (l *loop) forget(c *conn) int {
	fd := c.fd
	l.conns[fd] = nil
	_ = unix.EpollCtl(l.epfd, unix.EPOLL_CTL_DEL, fd, nil)
	c.fd = -1
	return fd
}

func (l *loop) close(c *conn) { unix.Close(l.forget(c)) }

// linger half-closes c and drains what the client still sends for a moment on a goroutine, so
// that the last response is not lost to a reset when unread input remains.
func (l *loop) linger(c *conn) { lingerFD(l.ctx, l.wg, l.forget(c), c.buf) }

// lingerFD half-closes the socket fd, which the caller gives up, and drains it into buf on a
// goroutine of wg, which closes it when done or when ctx ends (both event-loop paths).
func lingerFD(ctx context.Context, wg *sync.WaitGroup, fd int, buf []byte) {
	if unix.Shutdown(fd, unix.SHUT_WR) != nil {
		unix.Close(fd)
		return
	}
	f := os.NewFile(uintptr(fd), "conn") // non-blocking: reads honour the deadline
	wg.Go(func() {
		stop := context.AfterFunc(ctx, func() { f.Close() })
		defer stop()
		defer f.Close()
		drain(f, buf)
	})
}

// shutdown closes every connection of the loop and its epoll set.
func (l *loop) shutdown() {
	l.mu.Lock()
	l.closed = true
	for fd := range l.added {
		unix.Close(int(fd))
	}
	clear(l.added)
	l.mu.Unlock()
	for fd, c := range l.conns {
		if c != nil {
			unix.Close(fd)
		}
	}
	clear(l.conns)
	l.ef.Close()
}

// rawIO is a read or write of a non-blocking socket (it never blocks, so it skips the
// scheduler's system call bookkeeping), as internal/loadgen makes them.
func rawIO(trap uintptr, fd int, p []byte) (int, unix.Errno) {
	r, _, errno := unix.RawSyscall(trap, uintptr(fd), uintptr(unsafe.Pointer(unsafe.SliceData(p))), uintptr(len(p)))
	return int(r), errno
}
