//go:build linux && !loadgen_portable

package loadgen

import (
	"net"
	"syscall"

	"golang.org/x/sys/unix"
)

// h2io is an HTTP/2 connection's I/O. On cleartext TCP it takes the HTTP/1.1 worker's raw path
// (sys_linux.go): one RawConn.Read whose callback reads, handles the frames and writes the next
// requests, then parks; reads and writes are raw system calls on the non-blocking socket. TLS
// connections use net.Conn reads and writes.
type h2io struct {
	nc net.Conn
	rc syscall.RawConn
	fd int // -1: not raw
}

func (h *h2io) attach(nc net.Conn) (err error) {
	h.nc = nc
	h.rc, h.fd, err = rawConn(nc)
	return err
}

// Write writes p, with raw system calls while the socket takes it, then a blocking write.
func (h *h2io) Write(p []byte) (int, error) {
	if h.fd < 0 {
		return h.nc.Write(p)
	}
	n := 0
	for n < len(p) {
		k, errno := rawIO(unix.SYS_WRITE, h.fd, p[n:])
		switch errno {
		case 0:
			n += k
			continue
		case unix.EINTR:
			continue
		case unix.EAGAIN:
			k, err := h.nc.Write(p[n:])
			return n + k, err
		default:
			return n, errno
		}
	}
	return n, nil
}

// serve reads and handles frames until step says the connection ends.
func (h *h2io) serve(c *h2client, s *h2session) {
	if h.fd < 0 {
		streamServe(c, s)
		return
	}
	end, woken := false, false
	onReadable := func(fd uintptr) bool {
		if woken { // after a park, not the wait's first try
			c.mu.Lock()
			d := c.coalesceWait(s, c.now())
			c.mu.Unlock()
			if d > 0 {
				rawSleep(d)
			}
		}
		woken = true
		for {
			s.in.compact()
			n, err, empty := rawRead(int(fd), s.in.buf[s.in.w:])
			if empty {
				if c.cfg.gate != nil {
					c.cfg.gate.parked(c.now())
				}
				return false
			}
			if end = c.step(s, n, err); end {
				return true
			}
		}
	}
	for !end {
		woken = false
		if err := h.rc.Read(onReadable); err != nil && !end {
			end = c.step(s, 0, err)
		}
	}
}
