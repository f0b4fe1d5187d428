//go:build !linux || loadgen_portable

package loadgen

import "net"

// sysConn is the portable I/O path: plain net.Conn reads; writes go through writePending.
type sysConn struct {
	w  *worker
	nc net.Conn
}

func (s *sysConn) init(w *worker) { s.w = w }

func (s *sysConn) attach(c net.Conn) error { s.nc = c; return nil }

func (s *sysConn) detach() { s.nc = nil }

// write leaves p to the caller, which writes it with a blocking net.Conn write.
func (s *sysConn) write(p []byte) ([]byte, error) { return p, nil }

// setLowWater is not used on the portable path.
func (s *sysConn) setLowWater(int) error { return errNoLowWater }

// readNow returns false: the portable path cannot read without waiting.
func (s *sysConn) readNow() bool { return false }

func (s *sysConn) wait() error { return streamWait(s.w, s.nc) }
