//go:build linux && !loadgen_portable

package loadgen

import (
	"fmt"
	"net"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// sysConn is the Linux I/O path. A wait is one RawConn.Read whose callback reads, parses and
// writes the next requests itself, then returns false to park until the socket is readable
// again. A closed-loop connection so costs one read and one write system call per exchange,
// where a net.Conn Read after each Write would first try a read that returns EAGAIN. A TLS
// connection (stream) takes the portable path instead: its records need crypto/tls's reads.
type sysConn struct {
	w      *worker
	stream net.Conn
	rc     syscall.RawConn
	fd     int
	readFn func(uintptr) bool
	woken  bool // the callback runs after a wait for readiness, not as a wait's first try
}

func (s *sysConn) init(w *worker) {
	s.w, s.fd = w, -1
	s.readFn = s.onReadable
}

func (s *sysConn) attach(nc net.Conn) error {
	rc, fd, err := rawConn(nc)
	if rc == nil && err == nil {
		s.stream = nc
	}
	s.rc, s.fd = rc, fd
	return err
}

// rawConn returns a TCP connection's RawConn and descriptor; nil and -1 for other connections
// (TLS), which take the stream path.
func rawConn(nc net.Conn) (syscall.RawConn, int, error) {
	c, ok := nc.(*net.TCPConn)
	if !ok {
		return nil, -1, nil
	}
	rc, err := c.SyscallConn()
	if err != nil {
		return nil, -1, fmt.Errorf("raw connection: %w", err)
	}
	fd := -1
	if err := rc.Control(func(f uintptr) { fd = int(f) }); err != nil {
		return nil, -1, fmt.Errorf("raw connection: %w", err)
	}
	return rc, fd, nil
}

func (s *sysConn) detach() { s.rc, s.fd, s.stream = nil, -1, nil }

// wait reads and handles responses until the worker must leave (nil) or the read deadline passes.
func (s *sysConn) wait() error {
	if s.stream != nil {
		return streamWait(s.w, s.stream)
	}
	s.woken = false
	return s.rc.Read(s.readFn)
}

func (s *sysConn) onReadable(fd uintptr) bool {
	w := s.w
	if d := w.coalesceWait(s.woken); d > 0 {
		rawSleep(d)
	}
	s.woken = true // the next call follows a park
	for {
		space := len(w.buf) - w.w
		n, err, empty := rawRead(int(fd), w.buf[w.w:])
		if empty {
			return false
		}
		leave, again := w.step(n, err, n == space)
		if leave {
			return true
		}
		if d := w.coalesceWait(false); d > 0 {
			rawSleep(d)
			continue
		}
		if !again {
			return false
		}
	}
}

// setLowWater sets the socket's SO_RCVLOWAT: it is signalled readable once n bytes are in.
func (s *sysConn) setLowWater(n int) error {
	if s.fd < 0 || s.stream != nil {
		return errNoLowWater
	}
	return unix.SetsockoptInt(s.fd, unix.SOL_SOCKET, unix.SO_RCVLOWAT, n)
}

// readNow reads what the socket holds without waiting and handles it. It returns false when
// nothing was there.
func (s *sysConn) readNow() bool {
	if s.stream != nil {
		return false
	}
	w := s.w
	space := len(w.buf) - w.w
	n, errno := rawIO(unix.SYS_READ, s.fd, w.buf[w.w:])
	switch errno {
	case 0:
		w.step(n, nil, n == space)
	case unix.EAGAIN, unix.EINTR:
		return false
	default:
		w.step(0, errno, false)
	}
	return true
}

// write writes p without blocking and returns what the socket did not take.
func (s *sysConn) write(p []byte) ([]byte, error) {
	if s.stream != nil {
		return p, nil // writePending writes it with a blocking write
	}
	for len(p) > 0 {
		n, errno := rawIO(unix.SYS_WRITE, s.fd, p)
		switch errno {
		case 0:
		case unix.EINTR:
			continue
		case unix.EAGAIN:
			return p, nil
		default:
			return p, errno
		}
		p = p[n:]
	}
	return nil, nil
}

// rawRead reads a non-blocking socket: n bytes, or an error; empty when it has nothing to read.
func rawRead(fd int, p []byte) (n int, err error, empty bool) {
	for {
		n, errno := rawIO(unix.SYS_READ, fd, p)
		switch errno {
		case 0:
			return n, nil, false
		case unix.EINTR:
		case unix.EAGAIN:
			return 0, nil, true
		default:
			return 0, errno, false
		}
	}
}

// rawSleep sleeps without telling the scheduler: the wait is short (at most maxH2Coalesce), and the
// goroutines sharing this thread may as well wait for the responses to come in.
func rawSleep(ns int64) {
	ts := unix.NsecToTimespec(ns)
	unix.RawSyscall(unix.SYS_NANOSLEEP, uintptr(unsafe.Pointer(&ts)), 0, 0)
}

// rawIO reads or writes a non-blocking socket with a raw system call. A plain one tells the
// scheduler it is entering a system call, and that wakes the runtime's monitor thread whenever the
// process was idle: a futex wake, a context switch and a sleep for every such read, which costs a
// generator more than the read itself. A non-blocking socket call never blocks, so the scheduler
// need not know.
func rawIO(trap uintptr, fd int, p []byte) (int, unix.Errno) {
	r, _, errno := unix.RawSyscall(trap, uintptr(fd), uintptr(unsafe.Pointer(unsafe.SliceData(p))), uintptr(len(p)))
	return int(r), errno
}
