package loadgen

import (
	"errors"
	"strings"
	"testing"
)

type parsed struct {
	status int
	close  bool
}

// parseAll feeds stream to a parser in pieces of at most chunk bytes, as a connection's reads
// would, and returns the responses it completed, whether bytes were left unparsed, and the error.
func parseAll(stream string, chunk int, headOnly bool) (got []parsed, leftover bool, err error) {
	p := respParser{headOnly: headOnly}
	var buf []byte
	for off := 0; off < len(stream); off += chunk {
		buf = append(buf, stream[off:min(off+chunk, len(stream))]...)
		for len(buf) > 0 {
			n, done, err := p.parse(buf)
			buf = buf[n:]
			if err != nil {
				return got, len(buf) > 0, err
			}
			if done {
				got = append(got, parsed{p.status, p.close})
			} else if n == 0 {
				break
			}
		}
	}
	return got, len(buf) > 0 || p.state != stHead, nil
}

const hello = "HTTP/1.1 200 OK\r\nContent-Length: 13\r\nContent-Type: text/plain\r\n\r\nHello, World!"

func TestParserValidStreams(t *testing.T) {
	chunked := "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" +
		"5\r\nHello\r\n8;ext=1\r\n, World!\r\n0\r\nX-Trailer: a\r\n\r\n"
	cases := []struct {
		name     string
		stream   string
		headOnly bool
		want     []parsed
	}{
		{"content-length", hello + hello, false, []parsed{{200, false}, {200, false}}},
		{"header case and spaces", "HTTP/1.1 404 Not Found\r\ncOnTeNt-LeNgTh:  3 \r\n\r\nabc", false, []parsed{{404, false}}},
		{"no reason phrase", "HTTP/1.1 204\r\n\r\n", false, []parsed{{204, false}}},
		{"chunked", chunked + hello, false, []parsed{{200, false}, {200, false}}},
		{"chunked upper-case hex", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nA\r\n0123456789\r\n0\r\n\r\n", false, []parsed{{200, false}}},
		{"connection close", "HTTP/1.1 503 Busy\r\nConnection: keep-alive, Close\r\nContent-Length: 0\r\n\r\n", false, []parsed{{503, true}}},
		{"http/1.0 closes", "HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok", false, []parsed{{200, true}}},
		{"http/1.0 keep-alive", "HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 2\r\n\r\nok", false, []parsed{{200, false}}},
		{"interim 100 skipped", "HTTP/1.1 100 Continue\r\n\r\n" + hello, false, []parsed{{200, false}}},
		{"304 has no body", "HTTP/1.1 304 Not Modified\r\nContent-Length: 99\r\n\r\n" + hello, false, []parsed{{304, false}, {200, false}}},
		{"HEAD has no body", "HTTP/1.1 200 OK\r\nContent-Length: 13\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 13\r\n\r\n", true, []parsed{{200, false}, {200, false}}},
		{"remembered head is compared", hello + strings.Replace(hello, "200 OK", "503 No", 1), false, []parsed{{200, false}, {503, false}}},
		{"repeated equal lengths", "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\nok", false, []parsed{{200, false}}},
	}
	for _, c := range cases {
		for _, chunk := range []int{1, 2, 7, len(c.stream)} {
			got, leftover, err := parseAll(c.stream, chunk, c.headOnly)
			if err != nil || leftover || !equalParsed(got, c.want) {
				t.Errorf("%s (pieces of %d): got %v leftover %v err %v, want %v", c.name, chunk, got, leftover, err, c.want)
			}
		}
	}
}

func TestParserMalformed(t *testing.T) {
	cases := map[string]string{
		"garbage":              "garbage\r\n\r\n",
		"garbage without crlf": "<html>",
		"bad version":          "HTTP/2.0 200 OK\r\n\r\n",
		"bad status code":      "HTTP/1.1 2x0 OK\r\n\r\n",
		"no space after code":  "HTTP/1.1 200OK\r\n\r\n",
		"bad content-length":   "HTTP/1.1 200 OK\r\nContent-Length: 1x\r\n\r\n",
		"negative length":      "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n",
		"conflicting lengths":  "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab",
		"header without colon": "HTTP/1.1 200 OK\r\nbroken\r\n\r\n",
		"space in header name": "HTTP/1.1 200 OK\r\nContent Length: 2\r\n\r\n",
		"bare LF":              "HTTP/1.1 200 OK\nContent-Length: 0\r\n\r\n",
		"bad chunk size":       "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
		"chunk too long":       "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabc\r\n0\r\n\r\n",
		"switching protocols":  "HTTP/1.1 101 Switching Protocols\r\n\r\n",
		// The body is shorter than its Content-Length says: the next response's bytes are eaten
		// as body and what remains is not a status line.
		"wrong content-length": "HTTP/1.1 200 OK\r\nContent-Length: 20\r\n\r\nHello, World!" + hello,
		"head too large":       "HTTP/1.1 200 OK\r\nX: " + strings.Repeat("a", maxHeadBytes) + "\r\n\r\n",
	}
	for name, stream := range cases {
		for _, chunk := range []int{1, 3, len(stream)} {
			if _, _, err := parseAll(stream, chunk, false); !errors.Is(err, errMalformed) {
				t.Errorf("%s (pieces of %d): err = %v, want a malformed-response error", name, chunk, err)
			}
		}
	}
}

func TestParserEOF(t *testing.T) {
	p := respParser{}
	stream := []byte("HTTP/1.1 200 OK\r\n\r\nbody until close")
	if n, done, err := p.parse(stream); n != len(stream) || done || err != nil {
		t.Fatalf("parse = %d, %v, %v; want all bytes taken, not done", n, done, err)
	}
	if done, err := p.eof(0); !done || err != nil || !p.close || p.status != 200 {
		t.Errorf("eof after a close-delimited body = %v, %v (close %v, status %d); want a complete 200", done, err, p.close, p.status)
	}

	p = respParser{}
	stream = []byte("HTTP/1.1 200 OK\r\nContent-Length: 13\r\n\r\nHello")
	p.parse(stream)
	if done, err := p.eof(0); done || !errors.Is(err, errMalformed) {
		t.Errorf("eof in a Content-Length body = %v, %v; want a truncated-response error", done, err)
	}
	p.reset()
	if done, err := p.eof(4); done || !errors.Is(err, errMalformed) {
		t.Errorf("eof with a partial head = %v, %v; want a truncated-response error", done, err)
	}
	if done, err := p.eof(0); done || err != nil {
		t.Errorf("eof between responses = %v, %v; want nothing", done, err)
	}
}

func TestParserDoesNotAllocate(t *testing.T) {
	stream := []byte(strings.Repeat(hello, 16))
	p := respParser{}
	allocs := testing.AllocsPerRun(100, func() {
		for b := stream; len(b) > 0; {
			n, _, err := p.parse(b)
			if err != nil || n == 0 {
				t.Fatalf("parse: n=%d err=%v", n, err)
			}
			b = b[n:]
		}
	})
	if allocs != 0 {
		t.Errorf("parsing 16 responses allocated %v times, want 0", allocs)
	}
}

func equalParsed(a, b []parsed) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func BenchmarkParse16(b *testing.B) {
	stream := []byte(strings.Repeat("HTTP/1.1 200 OK\r\nServer: nginx/1.22.1\r\nDate: Sun, 22 Nov 2026 06:31:19 GMT\r\n"+
		"Content-Type: text/plain\r\nContent-Length: 13\r\nConnection: keep-alive\r\n\r\nHello, World!", 16))
	p := respParser{}
	b.SetBytes(int64(len(stream)))
	for b.Loop() {
		for buf := stream; len(buf) > 0; {
			n, _, _ := p.parse(buf)
			buf = buf[n:]
		}
	}
}
