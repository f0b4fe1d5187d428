//go:build !linux || loadgen_portable

package loadgen

import "net"

// h2io is an HTTP/2 connection's I/O: net.Conn reads and writes.
type h2io struct{ nc net.Conn }

func (h *h2io) attach(nc net.Conn) error { h.nc = nc; return nil }

func (h *h2io) Write(p []byte) (int, error) { return h.nc.Write(p) }

func (h *h2io) serve(c *h2client, s *h2session) { streamServe(c, s) }
