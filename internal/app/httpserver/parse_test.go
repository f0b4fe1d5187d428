package httpserver

import (
	"errors"
	"strings"
	"testing"
)

func TestParseRequest(t *testing.T) {
	tests := []struct {
		name, in            string
		method, path, query string
		http10, keepAlive   bool
		length              int64
		consumed            int // 0: whole input
	}{
		{name: "simple", in: "GET /plaintext HTTP/1.1\r\nHost: a\r\n\r\n", method: "GET", path: "/plaintext", keepAlive: true},
		{name: "query", in: "GET /json?x=1&y HTTP/1.1\r\nHost: a\r\n\r\n", method: "GET", path: "/json", query: "x=1&y", keepAlive: true},
		{name: "close", in: "GET / HTTP/1.1\r\nHost: a\r\nConnection: keep-alive, Close\r\n\r\n", method: "GET", path: "/"},
		{name: "http10", in: "GET / HTTP/1.0\r\n\r\n", method: "GET", path: "/", http10: true},
		{name: "http10 keep-alive", in: "HEAD / HTTP/1.0\r\nconnection: Keep-Alive\r\n\r\n", method: "HEAD", path: "/", http10: true, keepAlive: true},
		{name: "bare LF and leading blank line", in: "\r\nGET / HTTP/1.1\nHost: a\n\n", method: "GET", path: "/", keepAlive: true},
		{name: "absolute form", in: "GET http://h:1/a/b?q HTTP/1.1\r\nHost: h\r\n\r\n", method: "GET", path: "/a/b", query: "q", keepAlive: true},
		{name: "length", in: "POST /x HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\nhello", method: "POST", path: "/x", keepAlive: true, length: 5, consumed: 67},
		{name: "pipelined", in: "GET /a HTTP/1.1\r\nHost: a\r\n\r\nGET /b HTTP/1.1\r\n", method: "GET", path: "/a", keepAlive: true, consumed: 28},
		{name: "OWS in value", in: "GET / HTTP/1.1\r\nHost: \t a \t\r\nX-Any:\r\n\r\n", method: "GET", path: "/", keepAlive: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var r Request
			n, err := parseRequest([]byte(tt.in), &r)
			if err != nil {
				t.Fatalf("err = %v", err)
			}
			want := tt.consumed
			if want == 0 {
				want = len(tt.in)
			}
			got := [...]any{n, string(r.Method), string(r.Path), string(r.Query), r.HTTP10, r.KeepAlive, r.ContentLength}
			exp := [...]any{want, tt.method, tt.path, tt.query, tt.http10, tt.keepAlive, tt.length}
			if got != exp {
				t.Fatalf("got %v, want %v", got, exp)
			}
		})
	}
}

func TestParseRequestIncomplete(t *testing.T) {
	full := "GET /plaintext HTTP/1.1\r\nHost: a\r\nAccept: */*\r\n\r\n"
	for i := range len(full) {
		var r Request
		n, err := parseRequest([]byte(full[:i]), &r)
		if n != 0 || err != nil {
			t.Fatalf("prefix %q: n=%d err=%v, want incomplete", full[:i], n, err)
		}
	}
}

func TestParseRequestErrors(t *testing.T) {
	tests := map[string]struct {
		in   string
		want error
	}{
		"garbage":            {"GARBAGE\r\n\r\n", errBadRequest},
		"no target":          {"GET  HTTP/1.1\r\nHost: a\r\n\r\n", errBadRequest},
		"bad method":         {"G(T / HTTP/1.1\r\nHost: a\r\n\r\n", errBadRequest},
		"control in target":  {"GET /\x01 HTTP/1.1\r\nHost: a\r\n\r\n", errBadRequest},
		"bad proto":          {"GET / HTTX/1.1\r\nHost: a\r\n\r\n", errBadRequest},
		"http/2":             {"GET / HTTP/2.0\r\nHost: a\r\n\r\n", errVersion},
		"no host":            {"GET / HTTP/1.1\r\n\r\n", errBadRequest},
		"two hosts":          {"GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", errBadRequest},
		"space before colon": {"GET / HTTP/1.1\r\nHost : a\r\n\r\n", errBadRequest},
		"no colon":           {"GET / HTTP/1.1\r\nHost a\r\n\r\n", errBadRequest},
		"obs-fold":           {"GET / HTTP/1.1\r\nHost: a\r\n b\r\n\r\n", errBadRequest},
		"NUL in value":       {"GET / HTTP/1.1\r\nHost: a\x00\r\n\r\n", errBadRequest},
		"negative length":    {"GET / HTTP/1.1\r\nHost: a\r\nContent-Length: -1\r\n\r\n", errBadRequest},
		"differing lengths":  {"GET / HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n", errBadRequest},
		"huge length":        {"GET / HTTP/1.1\r\nHost: a\r\nContent-Length: 99999999999999999999\r\n\r\n", errBadRequest},
		"chunked":            {"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n", errNotImplemented},
		"chunked and length": {"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n", errBadRequest},
		"too many headers":   {"GET / HTTP/1.1\r\nHost: a\r\n" + strings.Repeat("X: y\r\n", maxHeaders) + "\r\n", errBadRequest},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			var r Request
			n, err := parseRequest([]byte(tt.in), &r)
			if !errors.Is(err, tt.want) || n != 0 {
				t.Fatalf("n=%d err=%v, want %v", n, err, tt.want)
			}
		})
	}
}
