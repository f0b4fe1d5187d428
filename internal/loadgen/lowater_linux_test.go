//go:build linux && !loadgen_portable

package loadgen

import (
	"net"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestLowWaterMark checks the socket option a pipelined worker sets: the size of two equal batches
// in a row, never in rate mode, and dropped for good after a stall.
func TestLowWaterMark(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	mark := func(w *worker) int {
		v, err := unix.GetsockoptInt(w.sys.fd, unix.SOL_SOCKET, unix.SO_RCVLOWAT)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	newConnWorker := func(rate int64) *worker {
		nc, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { nc.Close() })
		w := newWorker(&runConfig{depth: 16, rate: rate, bufSize: readBufferSize}, 0, newShards(1)[0])
		if err := w.sys.attach(nc); err != nil {
			t.Fatal(err)
		}
		return w
	}
	batch := func(w *worker, bytes int) {
		w.lw.got = bytes
		w.batchDone()
	}

	w := newConnWorker(0)
	batch(w, 2496)
	if got := mark(w); got != 1 {
		t.Errorf("after one batch: SO_RCVLOWAT %d, want the default 1", got)
	}
	batch(w, 2496)
	if got := mark(w); got != 2496 {
		t.Errorf("after two equal batches: SO_RCVLOWAT %d, want 2496", got)
	}
	batch(w, 2400)
	if got := mark(w); got != 2496 {
		t.Errorf("after a different batch: SO_RCVLOWAT %d, want 2496 kept", got)
	}
	w.fl.push(flight{})
	w.lowWaterStalled()
	batch(w, 2400)
	batch(w, 2400)
	if got := mark(w); got != 1 || !w.lw.off {
		t.Errorf("after a stall: SO_RCVLOWAT %d (off %v), want 1 for good", got, w.lw.off)
	}

	r := newConnWorker(1000)
	batch(r, 2496)
	batch(r, 2496)
	if got := mark(r); got != 1 {
		t.Errorf("rate mode: SO_RCVLOWAT %d, want the default 1", got)
	}
}

// TestLowWaterShrinkingResponses: after the mark is set, the server's responses get shorter, so a
// batch brings fewer bytes than the mark. Every request is still answered and counted, without
// timeouts.
func TestLowWaterShrinkingResponses(t *testing.T) {
	forEachIO(t, func(t *testing.T, io string) {
		t.Parallel()
		short := "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nHi"
		s := newServer(t, func(n int64) reply {
			if n < 16*8*4 { // 4 batches of each of the 8 connections, about
				return reply{data: []byte(hello)}
			}
			return reply{data: []byte(short)}
		})
		s.split = true
		s.start()
		d := 500 * time.Millisecond
		rep := run(t, Options{IO: io, URL: s.url(), Connections: 8, Pipeline: 16, Duration: d})
		if served := s.requests.Load(); rep.Requests != served || rep.Sent != served {
			t.Errorf("requests %d, sent %d; server answered %d", rep.Requests, rep.Sent, served)
		}
		if rep.Requests <= 16*8*4 || rep.Errors.Total() != 0 || rep.Status["2xx"] != rep.Requests {
			t.Errorf("requests %d, errors %+v, status %v; want > %d all 2xx without errors", rep.Requests, rep.Errors, rep.Status, 16*8*4)
		}
		if rep.Elapsed > d+time.Second {
			t.Errorf("elapsed %s, want the %s window plus a short drain", rep.Elapsed, d)
		}
	})
}
