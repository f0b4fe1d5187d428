//go:build !linux || loadgen_portable

package loadgen

import (
	"errors"
	"io"
	"net"
	"os"
)

// sysConn is the portable I/O path: plain net.Conn reads; writes go through writePending.
type sysConn struct {
	w  *worker
	nc *net.TCPConn
}

func (s *sysConn) init(w *worker) { s.w = w }

func (s *sysConn) attach(c *net.TCPConn) error { s.nc = c; return nil }

func (s *sysConn) detach() { s.nc = nil }

// write leaves p to the caller, which writes it with a blocking net.Conn write.
func (s *sysConn) write(p []byte) ([]byte, error) { return p, nil }

// readNow returns false: the portable path cannot read without waiting.
func (s *sysConn) readNow() bool { return false }

func (s *sysConn) wait() error {
	w := s.w
	for {
		n, err := s.nc.Read(w.buf[w.w:])
		if errors.Is(err, os.ErrDeadlineExceeded) {
			return err
		}
		if err == io.EOF {
			n, err = 0, nil
		}
		if leave, _ := w.step(n, err, false); leave {
			return nil
		}
	}
}
