//go:build linux

package httpserver

import (
	"context"
	"fmt"
	"log/slog"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"github.com/crankshaft/crankshaft/internal/uring"
)

// The io_uring path (Config.IO uring, or auto where the kernel allows it). Each of GOMAXPROCS
// rings is driven by one goroutine locked to its thread: the ring is set up single-issuer with
// deferred task work, as internal/loadgen's, so completions are posted when that thread enters
// the kernel to wait for them. A connection handed over by Serve gets one multishot receive into
// the ring's provided buffers; what arrives is copied into the connection's read buffer and
// answered as on the epoll path, and the sends of a batch of completions (one per connection)
// and the receives re-armed go to the kernel in the one io_uring_enter that also waits for the
// next completions. While a send is in flight, new responses gather in the connection's other
// output buffer and follow it once it completes, in order. Connection: close cancels the
// receive and, once it has ended, lingers as the epoll path does. Completions for a connection
// since closed are recognised by a generation in their user data and dropped.

func probeRing() error { return uring.Probe() }

// Operations, in a submission's user data with the connection's slot and generation.
const (
	ringOpWake = iota + 1
	ringOpCancel
	ringOpRecv
	ringOpSend
)

const (
	ringEntries     = 256
	ringRecvBufs    = 256
	ringRecvBufSize = 8 << 10
	ringMaxWait     = int64(time.Second)
)

// ringConn is a connection served by a ring.
type ringConn struct {
	c         *conn // nil: a free slot
	fd        int
	gen       uint32
	flight    []byte // the bytes being sent; c.out gathers what follows
	sent      int    // of flight, sent so far
	sending   bool
	recv      bool // the multishot receive is armed
	cancelled bool // its cancellation was asked (Connection: close answered)
}

// ring is one io_uring ring and the connections it serves.
type ring struct {
	srv   *Server
	ctx   context.Context
	wg    *sync.WaitGroup
	r     *uring.Ring
	bufs  *uring.BufRing
	cqes  []uring.CQE
	conns []ringConn // by slot; owned by the ring's goroutine
	free  []int
	fds   []int // scratch for adopting
	// completeFn is complete as a func value, made once (a method value allocates each time).
	completeFn func(uring.CQE)
	pending    int // submissions whose last completion has not come
	stop       atomic.Bool

	mu     sync.Mutex
	efd    int   // eventfd: wakes the ring's wait
	added  []int // sockets handed over by Serve, not yet seen by the ring
	closed bool
}

// rings is the set of io_uring rings of one Serve call.
type rings = spread[*ring]

// startRings starts n rings that run until ctx ends; wg waits for them.
func (s *Server) startRings(ctx context.Context, wg *sync.WaitGroup, n int) (*rings, error) {
	rs := &rings{}
	for range n {
		r := &ring{srv: s, ctx: ctx, wg: wg, efd: -1}
		ready := make(chan error, 1)
		wg.Go(func() { r.run(ready) })
		if err := <-ready; err != nil {
			for _, r := range rs.all {
				r.abort()
			}
			return nil, err
		}
		rs.all = append(rs.all, r)
		context.AfterFunc(ctx, r.abort)
	}
	return rs, nil
}

// add hands fd to the ring, or closes it when the ring has stopped.
func (r *ring) add(fd int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		unix.Close(fd)
		return
	}
	r.added = append(r.added, fd)
	r.wake()
}

// abort stops the ring from another goroutine: its wait returns at once.
func (r *ring) abort() {
	r.stop.Store(true)
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.closed {
		r.wake()
	}
}

// wake makes the ring's wait return; r.mu is held (the eventfd stays open meanwhile).
func (r *ring) wake() {
	one := [8]byte{1}
	unix.Write(r.efd, one[:])
}

// run sets the ring up on this goroutine's thread, says so on ready, and serves until stopped.
func (r *ring) run(ready chan<- error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := r.setup(); err != nil {
		ready <- err
		return
	}
	ready <- nil
	defer r.shutdown()
	last := time.Now()
	for !r.stop.Load() {
		if now := time.Now(); now.Sub(last) >= yieldEvery { // as the epoll loops do
			runtime.Gosched()
			last = now
		}
		r.bufs.Publish()
		if err := r.r.Submit(true, ringMaxWait); err != nil {
			r.srv.log.Error("io_uring wait", slog.Any("err", err))
			return
		}
		r.handle(r.r.Completions(r.cqes[:0]))
	}
}

func (r *ring) setup() error {
	ur, err := uring.New(ringEntries, 16*ringEntries, uring.Flags)
	if err != nil {
		return fmt.Errorf("io_uring ring: %w", err)
	}
	bufs, err := uring.NewBufRing(ur, 0, ringRecvBufs, ringRecvBufSize)
	if err != nil {
		ur.Close()
		return err
	}
	efd, err := unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK)
	if err != nil {
		bufs.Close()
		ur.Close()
		return fmt.Errorf("eventfd: %w", err)
	}
	r.r, r.bufs, r.efd = ur, bufs, efd
	r.cqes = make([]uring.CQE, 0, 16*ringEntries)
	r.completeFn = r.complete
	r.armWake()
	return nil
}

func (r *ring) armWake() {
	r.r.Next().PollIn(r.efd, uring.Tag(0, 0, ringOpWake))
	r.pending++
}

// handle dispatches a batch of completions, giving their receive buffers back once read.
func (r *ring) handle(cqes []uring.CQE) { r.pending -= r.bufs.Handle(cqes, r.completeFn) }

func (r *ring) complete(e uring.CQE) {
	i, gen, op := uring.Untag(e.UserData)
	switch op {
	case ringOpWake:
		r.adopt()
		return
	case ringOpCancel:
		return
	}
	if i >= len(r.conns) || r.conns[i].c == nil || !uring.SameGen(gen, r.conns[i].gen) {
		return // a connection since closed
	}
	switch op {
	case ringOpRecv:
		r.received(i, e)
	case ringOpSend:
		r.sent(i, e.Res)
	}
}

// adopt takes the sockets handed over since the last wake-up and waits for the next one.
func (r *ring) adopt() {
	var b [8]byte
	unix.Read(r.efd, b[:])
	r.mu.Lock()
	r.fds = append(r.fds[:0], r.added...)
	r.added = r.added[:0]
	r.mu.Unlock()
	for _, fd := range r.fds {
		r.open(fd)
	}
	if !r.stop.Load() {
		r.armWake()
	}
}

// open gives fd a slot and arms its receive.
func (r *ring) open(fd int) {
	var i int
	if n := len(r.free); n > 0 {
		i, r.free = r.free[n-1], r.free[:n-1]
	} else {
		i = len(r.conns)
		r.conns = append(r.conns, ringConn{})
	}
	c := r.srv.newConn(nil)
	c.fd = fd
	rc := &r.conns[i]
	rc.c, rc.fd = c, fd
	r.arm(i)
}

func (r *ring) arm(i int) {
	rc := &r.conns[i]
	r.r.Next().RecvMultishot(rc.fd, 0, uring.Tag(i, rc.gen, ringOpRecv))
	rc.recv = true
	r.pending++
}
