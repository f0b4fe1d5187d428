package apptest

import (
	"bytes"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Endpoint is what one app answers on its test path.
type Endpoint struct {
	Path        string
	ContentType *regexp.Regexp
	// CheckBody fails the test when the body is wrong (e.g. compares it with the exact text).
	CheckBody func(t testing.TB, body []byte)
}

// ExactBody returns a CheckBody comparing with want.
func ExactBody(want string) func(testing.TB, []byte) {
	return func(t testing.TB, body []byte) {
		t.Helper()
		if string(body) != want {
			t.Fatalf("body = %q, want %q", body, want)
		}
	}
}

// CheckOK checks a 200 response: headers and body.
func (e Endpoint) CheckOK(t testing.TB, r Response) {
	t.Helper()
	if r.Status != 200 {
		t.Fatalf("status = %d, want 200 (body %q)", r.Status, r.Body)
	}
	if r.Header.Get("Server") == "" {
		t.Errorf("no Server header: %v", r.Header)
	}
	if ct := r.Header.Get("Content-Type"); !e.ContentType.MatchString(ct) {
		t.Errorf("Content-Type = %q, want %v", ct, e.ContentType)
	}
	cl, te := r.Header.Get("Content-Length"), r.Header.Get("Transfer-Encoding")
	if cl == "" && te != "chunked" {
		t.Errorf("neither Content-Length nor chunked: %v", r.Header)
	}
	if cl != "" && cl != strconv.Itoa(len(r.Body)) {
		t.Errorf("Content-Length = %s, body has %d bytes", cl, len(r.Body))
	}
	checkDate(t, r.Header.Get("Date"))
	e.CheckBody(t, r.Body)
}

func checkDate(t testing.TB, date string) {
	t.Helper()
	d, err := http.ParseTime(date)
	if err != nil || !strings.HasSuffix(date, " GMT") {
		t.Fatalf("Date %q is not RFC 1123 GMT: %v", date, err)
	}
	if off := time.Since(d); off < -2*time.Second || off > 3*time.Second {
		t.Errorf("Date %q is %v away from now", date, off)
	}
}

// CheckHTTP runs the TechEmpower verification steps on addr as subtests.
func CheckHTTP(t *testing.T, addr string, e Endpoint) {
	get := "GET " + e.Path + " HTTP/1.1\r\nHost: test\r\n\r\n"
	t.Run("ok", func(t *testing.T) { e.CheckOK(t, Get(t, addr, e.Path)) })
	t.Run("date changes", func(t *testing.T) { checkDateChanges(t, addr, e) })
	t.Run("pipelined in order", func(t *testing.T) { checkPipelined(t, addr, e) })
	t.Run("head", func(t *testing.T) {
		c := Dial(t, addr)
		c.Send("HEAD " + e.Path + " HTTP/1.1\r\nHost: test\r\n\r\n" + get)
		if r := c.Read("HEAD"); r.Status != 200 || len(r.Body) != 0 || r.Header.Get("Content-Length") == "" {
			t.Fatalf("HEAD: status %d, body %q, headers %v", r.Status, r.Body, r.Header)
		}
		e.CheckOK(t, c.Read("GET"))
	})
	t.Run("http/1.0", func(t *testing.T) {
		c := Dial(t, addr)
		c.Send("GET " + e.Path + " HTTP/1.0\r\n\r\n")
		e.CheckOK(t, c.Read("GET"))
		c.ExpectEOF()
	})
	t.Run("http/1.0 keep-alive", func(t *testing.T) {
		c := Dial(t, addr)
		req := "GET " + e.Path + " HTTP/1.0\r\nConnection: keep-alive\r\n\r\n"
		c.Send(req + req)
		for range 2 {
			r := c.Read("GET")
			e.CheckOK(t, r)
			if !strings.EqualFold(r.Header.Get("Connection"), "keep-alive") {
				t.Fatalf("Connection = %q, want keep-alive", r.Header.Get("Connection"))
			}
		}
	})
	t.Run("connection close", func(t *testing.T) {
		c := Dial(t, addr)
		c.Send("GET " + e.Path + " HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n" + get)
		r := c.Read("GET")
		e.CheckOK(t, r)
		if !r.Close {
			t.Errorf("response does not say Connection: close: %v", r.Header)
		}
		c.ExpectEOF()
	})
	t.Run("request body discarded", func(t *testing.T) {
		c := Dial(t, addr)
		c.Send("GET " + e.Path + " HTTP/1.1\r\nHost: test\r\nContent-Length: 11\r\n\r\nGET / HTTP/" + get)
		e.CheckOK(t, c.Read("GET"))
		e.CheckOK(t, c.Read("GET"))
	})
	t.Run("not found", func(t *testing.T) {
		if r := Get(t, addr, "/no/such/path"); r.Status != 404 {
			t.Fatalf("status = %d, want 404", r.Status)
		}
	})
	for name, raw := range map[string]string{
		"garbage":         "GARBAGE\r\n\r\n",
		"space in header": "GET " + e.Path + " HTTP/1.1\r\nHost : x\r\n\r\n",
		"no host":         "GET " + e.Path + " HTTP/1.1\r\n\r\n",
		"bad length":      "GET " + e.Path + " HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n",
	} {
		t.Run("400 "+name, func(t *testing.T) {
			c := Dial(t, addr)
			c.Send(raw)
			if r := c.Read("GET"); r.Status != 400 {
				t.Fatalf("status = %d, want 400", r.Status)
			}
			c.ExpectEOF()
		})
	}
}

// checkDateChanges polls until the Date header differs from the first one (deadline 3 s).
func checkDateChanges(t *testing.T, addr string, e Endpoint) {
	c := Dial(t, addr)
	get := "GET " + e.Path + " HTTP/1.1\r\nHost: test\r\n\r\n"
	c.Send(get)
	first := c.Read("GET").Header.Get("Date")
	deadline := time.Now().Add(3 * time.Second)
	for time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond) // poll interval, not a synchronisation
		c.Send(get)
		r := c.Read("GET")
		if d := r.Header.Get("Date"); d != first {
			checkDate(t, d)
			return
		}
	}
	t.Fatalf("Date stayed %q for 3s", first)
}

// checkPipelined sends 16 requests in one write, alternating the endpoint and unknown paths, and
// checks the 16 responses come back in order.
func checkPipelined(t *testing.T, addr string, e Endpoint) {
	var buf bytes.Buffer
	for i := range 16 {
		path := e.Path
		if i%2 == 1 {
			path = fmt.Sprintf("/missing/%d", i)
		}
		fmt.Fprintf(&buf, "GET %s HTTP/1.1\r\nHost: test\r\n\r\n", path)
	}
	c := Dial(t, addr)
	c.Send(buf.String())
	for i := range 16 {
		r := c.Read("GET")
		if i%2 == 1 {
			if r.Status != 404 {
				t.Fatalf("response %d: status %d, want 404", i, r.Status)
			}
			continue
		}
		e.CheckOK(t, r)
	}
}
