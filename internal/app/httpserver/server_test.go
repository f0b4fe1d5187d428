package httpserver

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"github.com/crankshaft/crankshaft/internal/testutil"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/app/dispatch"
)

// countObserver records what the server reports.
type countObserver struct {
	mu         sync.Mutex
	requests   int
	exceptions map[string]int
}

func (o *countObserver) AddRequests(n int) { o.mu.Lock(); o.requests += n; o.mu.Unlock() }
func (o *countObserver) Exception(kind string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.exceptions == nil {
		o.exceptions = map[string]int{}
	}
	o.exceptions[kind]++
}
func (o *countObserver) snapshot() (int, map[string]int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	m := map[string]int{}
	for k, v := range o.exceptions {
		m[k] = v
	}
	return o.requests, m
}

// echoPath answers 200 with the request path; /panic panics; /sleep/N sleeps N ms first.
func echoPath(w *Response, r *Request) {
	p := string(r.Path)
	switch {
	case p == "/panic":
		panic("boom")
	case strings.HasPrefix(p, "/sleep/"):
		ms, _ := strconv.Atoi(p[len("/sleep/"):])
		time.Sleep(time.Duration(ms) * time.Millisecond) // simulated slow handler
	}
	w.Write(200, "text/plain", r.Path)
}

// startServer serves echoPath on 127.0.0.1:0 until the test ends.
func startServer(t *testing.T, pool dispatch.Pool, readBuf int) (string, *countObserver) {
	obs := &countObserver{}
	s, err := New(Config{NewHandler: func() Handler { return HandlerFunc(echoPath) }, Pool: pool,
		Observer: obs, ReadBufferSize: readBuf})
	if err != nil {
		t.Fatal(err)
	}
	if pool != nil {
		t.Cleanup(pool.Close) // after the server stops (cleanups run last first)
	}
	return testutil.ServeLoopback(t, s.Serve), obs
}

type client struct {
	t  *testing.T
	nc net.Conn
	br *bufio.Reader
}

func dial(t *testing.T, addr string) *client {
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	_ = nc.SetDeadline(time.Now().Add(10 * time.Second))
	return &client{t: t, nc: nc, br: bufio.NewReader(nc)}
}

func (c *client) send(s string) {
	if _, err := io.WriteString(c.nc, s); err != nil {
		c.t.Fatal(err)
	}
}

func (c *client) read() (*http.Response, string) {
	resp, err := http.ReadResponse(c.br, nil)
	if err != nil {
		c.t.Fatalf("read response: %v", err)
	}
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		c.t.Fatal(err)
	}
	return resp, string(b)
}

func get(path string) string { return "GET " + path + " HTTP/1.1\r\nHost: t\r\n\r\n" }

func pools() map[string]func() dispatch.Pool {
	return map[string]func() dispatch.Pool{
		"inline":      func() dispatch.Pool { return nil },
		"shared":      func() dispatch.Pool { return dispatch.NewShared(4) },
		"partitioned": func() dispatch.Pool { return dispatch.NewPartitioned(2, 4) },
	}
}

// TestPipelinedOrder sends requests whose handlers finish in reverse order and checks the
// responses still come back in request order, in every dispatch mode.
func TestPipelinedOrder(t *testing.T) {
	for name, newPool := range pools() {
		t.Run(name, func(t *testing.T) {
			addr, obs := startServer(t, newPool(), 0)
			c := dial(t, addr)
			var req strings.Builder
			for i := range 8 {
				req.WriteString(get(fmt.Sprintf("/sleep/%d", 2*(8-i))))
			}
			c.send(req.String())
			for i := range 8 {
				if _, body := c.read(); body != fmt.Sprintf("/sleep/%d", 2*(8-i)) {
					t.Fatalf("response %d: body %q", i, body)
				}
			}
			if n, _ := obs.snapshot(); n != 8 {
				t.Fatalf("observed %d requests, want 8", n)
			}
		})
	}
}

func TestPanicBecomes500(t *testing.T) {
	for name, newPool := range pools() {
		t.Run(name, func(t *testing.T) {
			addr, obs := startServer(t, newPool(), 0)
			c := dial(t, addr)
			c.send(get("/a") + get("/panic") + get("/b"))
			if _, body := c.read(); body != "/a" {
				t.Fatalf("first body %q", body)
			}
			resp, _ := c.read()
			if resp.StatusCode != 500 || !resp.Close {
				t.Fatalf("status %d close %v, want 500 and close", resp.StatusCode, resp.Close)
			}
			if b, err := c.br.ReadByte(); err == nil {
				t.Fatalf("data after the closing response: %q", b)
			}
			if _, ex := obs.snapshot(); ex[KindPanic] != 1 {
				t.Fatalf("exceptions %v, want one panic", ex)
			}
		})
	}
}

// TestSplitReads feeds a request one byte at a time, then a body larger than the read buffer.
func TestSplitReads(t *testing.T) {
	addr, _ := startServer(t, nil, 512)
	c := dial(t, addr)
	for _, b := range []byte(get("/slow")) {
		c.send(string(b))
	}
	if _, body := c.read(); body != "/slow" {
		t.Fatalf("body %q", body)
	}
	big := strings.Repeat("x", 5000)
	c.send("POST /big HTTP/1.1\r\nHost: t\r\nContent-Length: 5000\r\n\r\n" + big + get("/after"))
	if _, body := c.read(); body != "/big" {
		t.Fatalf("body %q", body)
	}
	if _, body := c.read(); body != "/after" {
		t.Fatalf("body %q", body)
	}
}

func TestHeadTooLarge(t *testing.T) {
	addr, obs := startServer(t, nil, 256)
	c := dial(t, addr)
	c.send("GET / HTTP/1.1\r\nHost: t\r\nX-Big: " + strings.Repeat("y", 300) + "\r\n\r\n")
	if resp, _ := c.read(); resp.StatusCode != 431 || !resp.Close {
		t.Fatalf("status %d close %v, want 431 and close", resp.StatusCode, resp.Close)
	}
	if _, ex := obs.snapshot(); ex[KindBadRequest] != 1 {
		t.Fatalf("exceptions %v, want one bad_request", ex)
	}
}

// TestProcessAllocs checks the hot path (parse, handle, append the response) allocates nothing.
func TestProcessAllocs(t *testing.T) {
	for name, newPool := range pools() {
		t.Run(name, func(t *testing.T) {
			pool := newPool()
			if pool != nil {
				defer pool.Close()
			}
			c, in := benchConn(t, pool, 16)
			allocs := testing.AllocsPerRun(200, func() { runBatch(c, in) })
			if allocs != 0 {
				t.Fatalf("%v allocations per 16 pipelined requests, want 0", allocs)
			}
			runBatch(c, in)
			if n := bytes.Count(c.out, []byte("HTTP/1.1 200 OK\r\n")); n != 16 {
				t.Fatalf("%d responses, want 16", n)
			}
		})
	}
}

func benchConn(t testing.TB, pool dispatch.Pool, depth int) (*conn, []byte) {
	s, err := New(Config{NewHandler: func() Handler { return HandlerFunc(echoPath) }, Pool: pool})
	if err != nil {
		t.Fatal(err)
	}
	in := []byte(strings.Repeat("GET /plaintext HTTP/1.1\r\nHost: localhost\r\nAccept: */*\r\n\r\n", depth))
	c := s.newConn(nil)
	runBatch(c, in) // create the slots and grow the buffers
	return c, in
}

func runBatch(c *conn, in []byte) {
	c.out = c.out[:0]
	c.r, c.w = 0, copy(c.buf, in)
	c.process()
}

func BenchmarkProcess16(b *testing.B) {
	for name, newPool := range pools() {
		b.Run(name, func(b *testing.B) {
			pool := newPool()
			if pool != nil {
				defer pool.Close()
			}
			c, in := benchConn(b, pool, 16)
			b.ReportAllocs()
			for b.Loop() {
				runBatch(c, in)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(16*b.N), "ns/request")
		})
	}
}

// TestServeReturnsOnAcceptError checks Serve returns (and stops its clock) when the listener
// fails rather than when ctx ends.
func TestServeReturnsOnAcceptError(t *testing.T) {
	s, err := New(Config{NewHandler: func() Handler { return HandlerFunc(echoPath) }})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln.Close()
	done := make(chan error, 1)
	go func() { done <- s.Serve(context.Background(), ln) }()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("Serve on a closed listener returned nil")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Serve did not return after an accept error")
	}
}
