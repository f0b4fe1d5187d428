package loadgen

import (
	"context"
	"errors"
	"io"
	"net"
	"sync/atomic"
	"testing"
	"time"
)

// TestH2EndlessHeaderBlockIsMalformed: a server that answers with a HEADERS frame that does not
// end its block, then CONTINUATION frames without end, each carrying more of one literal whose
// length says 1 GiB, had the HPACK decoder keep every byte: crank load --protocol h2 against it
// held 5 GB after a minute and did not end at its duration. A header block longer than a
// response head may be (maxHeadBytes, as HTTP/1.1's) is malformed: the connection is dropped.
func TestH2EndlessHeaderBlockIsMalformed(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	const frames = 4096 // 64 MiB: more than loopback's socket buffers hold
	var most atomic.Int64
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func(c net.Conn) {
				defer c.Close()
				frame := func(typ, flags, stream byte, p []byte) []byte {
					n := len(p)
					return append([]byte{byte(n >> 16), byte(n >> 8), byte(n), typ, flags, 0, 0, 0, stream}, p...)
				}
				if _, err := c.Write(frame(0x4, 0, 0, nil)); err != nil { // SETTINGS
					return
				}
				// Answer once the client's request (its HEADERS on stream 1) has come.
				pre := make([]byte, 24)
				if _, err := io.ReadFull(c, pre); err != nil {
					return
				}
				for {
					h := make([]byte, 9)
					if _, err := io.ReadFull(c, h); err != nil {
						return
					}
					if _, err := io.CopyN(io.Discard, c, int64(h[0])<<16|int64(h[1])<<8|int64(h[2])); err != nil {
						return
					}
					if h[3] == 0x1 {
						break
					}
				}
				go func() { _, _ = io.Copy(io.Discard, c) }()
				// A literal with a new name "a" whose value is 2^30 bytes long (7-bit prefix).
				p := []byte{0x00, 0x01, 'a', 0x7f}
				for v := 1<<30 - 127; ; v /= 128 {
					if v < 128 {
						p = append(p, byte(v))
						break
					}
					p = append(p, byte(v%128+128))
				}
				if _, err := c.Write(frame(0x1, 0, 1, p)); err != nil { // HEADERS, no END_HEADERS
					return
				}
				body := frame(0x9, 0, 1, make([]byte, 16384)) // CONTINUATION, no END_HEADERS
				n := int64(0)
				for ; n < frames; n++ {
					if _, err := c.Write(body); err != nil {
						break
					}
				}
				for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
				}
			}(c)
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	rep, err := Run(ctx, Options{URL: "http://" + ln.Addr().String() + "/", Protocol: ProtocolH2, Connections: 1,
		Duration: 300 * time.Millisecond, Timeout: 5 * time.Second})
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		t.Fatalf("the run did not end within 30 s (error %v)", err)
	}
	if rep == nil || rep.Errors.Malformed == 0 {
		t.Fatalf("report %+v, error %v: want the endless header block counted as malformed", rep, err)
	}
	if n := most.Load(); n >= frames {
		t.Errorf("the client read all %d CONTINUATION frames (64 MiB) of one header block; want it dropped past %d bytes", n, maxHeadBytes)
	}
}
