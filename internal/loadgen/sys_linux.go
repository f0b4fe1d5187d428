//go:build linux && !loadgen_portable

package loadgen

import (
	"fmt"
	"net"
	"syscall"

	"golang.org/x/sys/unix"
)

// sysConn is the Linux I/O path. A wait is one RawConn.Read whose callback reads, parses and
// writes the next requests itself, then returns false to park until the socket is readable
// again. A closed-loop connection so costs one read and one write system call per exchange,
// where a net.Conn Read after each Write would first try a read that returns EAGAIN.
type sysConn struct {
	w      *worker
	rc     syscall.RawConn
	fd     int
	readFn func(uintptr) bool
}

func (s *sysConn) init(w *worker) {
	s.w, s.fd = w, -1
	s.readFn = s.onReadable
}

func (s *sysConn) attach(c *net.TCPConn) error {
	rc, err := c.SyscallConn()
	if err != nil {
		return fmt.Errorf("raw connection: %w", err)
	}
	if err := rc.Control(func(fd uintptr) { s.fd = int(fd) }); err != nil {
		return fmt.Errorf("raw connection: %w", err)
	}
	s.rc = rc
	return nil
}

func (s *sysConn) detach() { s.rc, s.fd = nil, -1 }

// wait reads and handles responses until the worker must leave (nil) or the read deadline passes.
func (s *sysConn) wait() error {
	return s.rc.Read(s.readFn)
}

func (s *sysConn) onReadable(fd uintptr) bool {
	w := s.w
	for {
		space := len(w.buf) - w.w
		n, err := unix.Read(int(fd), w.buf[w.w:])
		switch {
		case err == unix.EINTR:
			continue
		case err == unix.EAGAIN:
			return false
		case err != nil:
			n = 0
		}
		leave, again := w.step(n, err, n == space)
		if leave || !again {
			return leave
		}
	}
}

// write writes p without blocking and returns what the socket did not take.
func (s *sysConn) write(p []byte) ([]byte, error) {
	for len(p) > 0 {
		n, err := unix.Write(s.fd, p)
		switch {
		case err == unix.EINTR:
			continue
		case err == unix.EAGAIN:
			return p, nil
		case err != nil:
			return p, err
		}
		p = p[n:]
	}
	return nil, nil
}
