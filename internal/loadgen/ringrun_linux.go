//go:build linux && !loadgen_portable

package loadgen

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/crankshaft/crankshaft/internal/uring"
)

func probeRing() error { return uring.Probe() }

// runRings runs the HTTP/1.1 workers on io_uring rings, one per GOMAXPROCS (thread), each ring
// driving its share of the connections from one goroutine locked to its thread.
func runRings(ctx context.Context, cfg *runConfig, clients []client) error {
	sa, err := resolveSockaddr(ctx, cfg.addr, time.Duration(cfg.timeout))
	n := min(runtime.GOMAXPROCS(0), len(clients))
	loops := make([]*ringLoop, n)
	for i := range loops {
		loops[i] = &ringLoop{cfg: cfg, sa: sa, saErr: err}
	}
	for i, c := range clients {
		l := loops[i%n]
		l.ws = append(l.ws, c.(*worker))
	}
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i, l := range loops {
		stop := context.AfterFunc(ctx, l.abort)
		wg.Go(func() {
			defer stop()
			errs[i] = l.run()
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// sockaddr is a raw IPv4 or IPv6 socket address, as connect takes it.
type sockaddr struct {
	family int
	raw    [unix.SizeofSockaddrInet6]byte
	len    uint32
}

// resolveSockaddr resolves host:port once for every connection of the run.
func resolveSockaddr(ctx context.Context, addr string, timeout time.Duration) (*sockaddr, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("dial tcp %s: %w", addr, err)
	}
	p, err := net.LookupPort("tcp", port)
	if err != nil {
		return nil, fmt.Errorf("dial tcp %s: %w", addr, err)
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	ips, err := net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	if err != nil || len(ips) == 0 {
		return nil, fmt.Errorf("dial tcp %s: lookup %s: %v", addr, host, err)
	}
	return newSockaddr(netip.AddrPortFrom(ips[0].Unmap(), uint16(p))), nil
}

func newSockaddr(ap netip.AddrPort) *sockaddr {
	sa := &sockaddr{}
	port := ap.Port()
	if ap.Addr().Is4() {
		r := (*unix.RawSockaddrInet4)(unsafe.Pointer(&sa.raw[0]))
		r.Family, r.Addr = unix.AF_INET, ap.Addr().As4()
		r.Port = port>>8 | port<<8
		sa.family, sa.len = unix.AF_INET, unix.SizeofSockaddrInet4
		return sa
	}
	r := (*unix.RawSockaddrInet6)(unsafe.Pointer(&sa.raw[0]))
	r.Family, r.Addr = unix.AF_INET6, ap.Addr().As16()
	r.Port = port>>8 | port<<8
	sa.family, sa.len = unix.AF_INET6, unix.SizeofSockaddrInet6
	return sa
}

// abort stops the loop from another goroutine: its wait returns at once.
func (l *ringLoop) abort() {
	l.aborted.Store(true)
	if efd := l.efd.Load(); efd > 0 {
		one := [8]byte{1}
		unix.Write(int(efd), one[:])
	}
}

// run sets the ring up on this goroutine's thread, runs the connections until they are done or
// aborted, and frees the ring.
func (l *ringLoop) run() error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := l.setup(); err != nil {
		for _, w := range l.ws {
			w.wrapUp()
		}
		return err
	}
	defer l.teardown()
	l.loop()
	for i := range l.ws {
		if !l.cs[i].done {
			l.closeConn(i)
			l.finish(i)
		}
	}
	return nil
}

// ringLoop drives its workers' connections through one io_uring ring.
type ringLoop struct {
	cfg     *runConfig
	ws      []*worker
	cs      []ringConn
	sa      *sockaddr
	saErr   error
	ring    *uring.Ring
	bufs    *uring.BufRing
	out     []byte // the request batch, outside the Go heap: sends read it after their call
	efd     atomic.Int64
	aborted atomic.Bool
	cqes    []uring.CQE
	// completeFn is complete as a func value, made once (setup).
	completeFn func(uring.CQE)
	pending    int   // submissions whose last completion has not come
	live       int   // workers not done
	check      int64 // when a connection next needs a look (connect, deadline)
	sq         uint32
	connTO     unix.Timespec
}

// setup makes the ring, its buffer ring, the abort eventfd and the send buffer.
func (l *ringLoop) setup() error {
	n := len(l.ws)
	sq := uint32(1)
	for sq < uint32(2*n+8) && sq < 4096 {
		sq <<= 1
	}
	r, err := uring.New(sq, 4*sq, uring.Flags)
	if err != nil {
		return fmt.Errorf("io_uring ring: %w", err)
	}
	l.ring, l.sq = r, sq
	nb := 64
	for nb < 4*n && nb < 8192 {
		nb <<= 1
	}
	if l.bufs, err = uring.NewBufRing(r, 0, nb, recvBufSize); err != nil {
		r.Close()
		return err
	}
	if l.out, err = uring.NewRegion(len(l.cfg.batch)); err != nil {
		l.bufs.Close()
		r.Close()
		return err
	}
	copy(l.out, l.cfg.batch)
	efd, err := unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK)
	if err != nil {
		l.teardown()
		return fmt.Errorf("eventfd: %w", err)
	}
	l.efd.Store(int64(efd))
	l.cs = make([]ringConn, n)
	for i := range l.cs {
		l.cs[i].fd = -1
	}
	l.live, l.connTO = n, unix.NsecToTimespec(l.cfg.timeout)
	l.cqes = make([]uring.CQE, 0, 4*sq)
	l.completeFn = l.complete // a method value allocates each time it is made
	l.ring.Next().PollIn(efd, uring.Tag(0, 0, opWake))
	l.pending++
	return nil
}

// teardown cancels what is in flight, waits for it (at most a second) and frees the ring. Memory
// the kernel may still write is kept rather than freed when the wait runs out.
func (l *ringLoop) teardown() {
	l.pending = l.ring.CancelAll(l.pending, time.Second)
	if efd := l.efd.Swap(0); efd > 0 {
		unix.Close(int(efd))
	}
	if l.pending > 0 {
		slog.Warn("io_uring requests still in flight after cancelling; leaving the ring's memory mapped", "pending", l.pending)
		l.ring.Close()
		return
	}
	l.bufs.Close()
	l.ring.Close()
	if l.out != nil {
		uring.FreeRegion(l.out)
	}
}
