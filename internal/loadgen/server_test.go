package loadgen

import (
	"bytes"
	"net"
	"sync"
	"sync/atomic"
	"testing"
)

// reply is a test server's answer to one request.
type reply struct {
	data  []byte
	close bool // close the connection after writing data
}

// testServer is a raw-TCP HTTP/1.1 server on 127.0.0.1:0. It answers each GET request (no body)
// with handler(n), n counting requests from 0 over the server's life, and writes the replies to
// all the requests one read brought in one write (or one write each, when split).
type testServer struct {
	t       *testing.T
	ln      net.Listener
	handler func(n int64) reply
	pause   func() // when set, called before each write: a test stalls the server with it
	split   bool   // write each reply on its own, as nginx does, rather than a read's all at once

	requests atomic.Int64 // requests answered
	maxBatch atomic.Int64 // most requests one read brought
	wg       sync.WaitGroup
}

func okReply(int64) reply { return reply{data: []byte(hello)} }

func startServer(t *testing.T, handler func(n int64) reply) *testServer {
	t.Helper()
	return newServer(t, handler).start()
}

// newServer returns a server to configure (pause, split) before start.
func newServer(t *testing.T, handler func(n int64) reply) *testServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return &testServer{t: t, ln: ln, handler: handler}
}

func (s *testServer) start() *testServer {
	s.wg.Go(s.accept)
	s.t.Cleanup(func() {
		s.ln.Close()
		s.wg.Wait()
	})
	return s
}

func (s *testServer) url() string { return "http://" + s.ln.Addr().String() + "/" }

func (s *testServer) accept() {
	var conns sync.WaitGroup
	defer conns.Wait()
	var mu sync.Mutex
	var open []net.Conn
	defer func() {
		mu.Lock()
		for _, c := range open {
			c.Close()
		}
		mu.Unlock()
	}()
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return
		}
		mu.Lock()
		open = append(open, c)
		mu.Unlock()
		conns.Go(func() { s.serve(c) })
	}
}

func (s *testServer) serve(c net.Conn) {
	defer c.Close()
	buf := make([]byte, 64<<10)
	have := 0
	for {
		n, err := c.Read(buf[have:])
		if err != nil {
			return
		}
		have += n
		var out []byte
		batch, closing := int64(0), false
		for !closing {
			end := bytes.Index(buf[:have], []byte("\r\n\r\n"))
			if end < 0 {
				break
			}
			have = copy(buf, buf[end+4:have])
			r := s.handler(s.requests.Add(1) - 1)
			if s.split && len(out) > 0 {
				if _, err := c.Write(out); err != nil {
					return
				}
				out = out[:0]
			}
			out = append(out, r.data...)
			batch++
			closing = r.close
		}
		if batch == 0 {
			continue
		}
		s.noteBatch(batch)
		if s.pause != nil {
			s.pause()
		}
		if _, err := c.Write(out); err != nil || closing {
			return
		}
	}
}

func (s *testServer) noteBatch(n int64) {
	for {
		m := s.maxBatch.Load()
		if n <= m || s.maxBatch.CompareAndSwap(m, n) {
			return
		}
	}
}

// closedPort returns a loopback address with nothing listening on it.
func closedPort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}
