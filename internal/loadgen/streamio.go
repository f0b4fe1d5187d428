package loadgen

import (
	"errors"
	"io"
	"net"
	"os"
)

// streamWait is the portable wait: blocking net.Conn reads handed to step until the worker must
// leave (nil) or the read deadline passes. TLS connections take it on every system, and every
// connection off Linux. Writes on this path go through writePending's blocking net.Conn write.
func streamWait(w *worker, nc net.Conn) error {
	for {
		n, err := nc.Read(w.buf[w.w:])
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
