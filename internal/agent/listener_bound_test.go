package agent

import (
	"bytes"
	"context"
	"net"
	"runtime"
	"sync"
	"testing"
	"time"
)

// TestHeaderFloodBounded: unauthenticated loopback clients that send endless header lines and never
// finish cannot grow the agent's memory: headers are capped at MaxHeaderBytes (an audit took an
// agent from 65 MB to 2.6 GB with 1,000 such connections of 1,000 KiB) (issue 25, 6).
func TestHeaderFloodBounded(t *testing.T) {
	addr := serveLoopback(t, Options{NoToken: true})

	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	const conns, headerKiB = 300, 256
	line := append([]byte("GET /health HTTP/1.1\r\nHost: x\r\nX-Flood: "), bytes.Repeat([]byte("a"), 1024)...)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var open []net.Conn
	for range conns {
		wg.Go(func() {
			c, err := net.DialTimeout("tcp", addr, 2*time.Second)
			if err != nil {
				return
			}
			mu.Lock()
			open = append(open, c)
			mu.Unlock()
			_ = c.SetWriteDeadline(time.Now().Add(5 * time.Second))
			if _, err := c.Write(line); err != nil {
				return
			}
			chunk := bytes.Repeat([]byte("a"), 1024)
			for range headerKiB { // bounded: the header never ends, the server gives up first
				if _, err := c.Write(chunk); err != nil {
					return
				}
			}
		})
	}
	wg.Wait()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	grew := int64(after.HeapInuse) - int64(before.HeapInuse)
	for _, c := range open {
		c.Close()
	}
	if grew > 48<<20 {
		t.Errorf("heap grew %d MB under %d connections of %d KiB headers, want under 48 MB (about 120 MB before the bound)", grew>>20, conns, headerKiB)
	}
	t.Logf("heap grew %d KB", grew>>10)
}

// serveLoopback serves an agent with opts (in a folder of the test's) on 127.0.0.1 until the test
// ends, and returns its address.
func serveLoopback(t *testing.T, opts Options) string {
	t.Helper()
	opts.Dir = t.TempDir()
	a, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- a.Serve(ctx, ln) }()
	t.Cleanup(func() { cancel(); <-served })
	return ln.Addr().String()
}
