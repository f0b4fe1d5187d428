package apptest

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"testing"
	"time"
)

// Response is one response read off a raw connection.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
	Close  bool // the response announced the connection closes
}

// Conn is a raw client connection with a deadline for the whole test step.
type Conn struct {
	t  testing.TB
	nc net.Conn
	br *bufio.Reader
}

// Dial connects to addr; every read and write must finish within 10 s.
func Dial(t testing.TB, addr string) *Conn {
	t.Helper()
	nc, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatalf("dial %s: %v", addr, err)
	}
	t.Cleanup(func() { nc.Close() })
	if err := nc.SetDeadline(time.Now().Add(10 * time.Second)); err != nil {
		t.Fatalf("deadline: %v", err)
	}
	return &Conn{t: t, nc: nc, br: bufio.NewReader(nc)}
}

// Send writes raw bytes in one write.
func (c *Conn) Send(raw string) {
	c.t.Helper()
	if _, err := io.WriteString(c.nc, raw); err != nil {
		c.t.Fatalf("write: %v", err)
	}
}

// Read reads one response to a request with the given method.
func (c *Conn) Read(method string) Response {
	c.t.Helper()
	resp, err := http.ReadResponse(c.br, &http.Request{Method: method})
	if err != nil {
		c.t.Fatalf("read response: %v", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		c.t.Fatalf("read body: %v", err)
	}
	return Response{Status: resp.StatusCode, Header: resp.Header, Body: body, Close: resp.Close}
}

// ExpectEOF fails unless the server closes the connection without sending more bytes.
func (c *Conn) ExpectEOF() {
	c.t.Helper()
	b, err := c.br.ReadByte()
	if err == nil {
		c.t.Fatalf("want EOF, got byte %q", b)
	}
	if err != io.EOF {
		if ne, ok := err.(net.Error); ok && ne.Timeout() {
			c.t.Fatalf("want EOF, connection still open: %v", err)
		}
	}
}

// Get sends one GET and reads its response on a fresh connection.
func Get(t testing.TB, addr, path string) Response {
	t.Helper()
	c := Dial(t, addr)
	c.Send("GET " + path + " HTTP/1.1\r\nHost: test\r\n\r\n")
	return c.Read("GET")
}
