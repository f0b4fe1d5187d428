package loadgen

import (
	"bytes"

	"github.com/crankshaft/crankshaft/internal/httpwire"
)

// head is what a response's status line and headers say about framing.
type head struct {
	status int
	// contentLength is -1 when there is no Content-Length header.
	contentLength int64
	chunked       bool
	hasTE         bool // a Transfer-Encoding header (chunked or not)
	close         bool
}

// parseHeader parses a status line and header fields up to the empty line that ends them. It
// returns the bytes the head took, or 0 when the head is not complete in b. A bad line is an
// error as soon as it is complete.
func parseHeader(b []byte) (h head, used int, err error) {
	h.contentLength = -1
	line, used, err := cutLine(b)
	if err != nil || used == 0 {
		return h, 0, err
	}
	keepAlive, err := parseStatusLine(line, &h)
	if err != nil {
		return h, 0, err
	}
	for {
		line, n, err := cutLine(b[used:])
		if err != nil || n == 0 {
			return h, 0, err
		}
		used += n
		if len(line) == 0 {
			break
		}
		if err := h.field(line, &keepAlive); err != nil {
			return h, 0, err
		}
	}
	if !keepAlive {
		h.close = true
	}
	return h, used, nil
}

// parseStatusLine reads "HTTP/1.x NNN reason". It returns whether the version keeps the
// connection alive by default (1.1 does, 1.0 does not).
func parseStatusLine(line []byte, h *head) (keepAlive bool, err error) {
	if len(line) < 12 || string(line[:7]) != "HTTP/1." || line[8] != ' ' ||
		(len(line) > 12 && line[12] != ' ') {
		return false, parseError("bad status line")
	}
	switch line[7] {
	case '1':
		keepAlive = true
	case '0':
	default:
		return false, parseError("unsupported HTTP version")
	}
	for _, c := range line[9:12] {
		if c < '0' || c > '9' {
			return false, parseError("bad status code")
		}
		h.status = h.status*10 + int(c-'0')
	}
	if h.status < 100 {
		return false, parseError("bad status code")
	}
	return keepAlive, nil
}

// field applies one header field. Names are matched by length first, then ignoring case.
func (h *head) field(line []byte, keepAlive *bool) error {
	colon := bytes.IndexByte(line, ':')
	if colon <= 0 {
		return parseError("bad header field")
	}
	name := line[:colon]
	for _, c := range name {
		if c == ' ' || c == '\t' {
			return parseError("bad header field")
		}
	}
	switch len(name) {
	case len("content-length"):
		if equalFold(name, "content-length") {
			n, ok := parseLength(httpwire.TrimOWS(line[colon+1:]))
			if !ok || (h.contentLength >= 0 && h.contentLength != n) {
				return parseError("bad Content-Length")
			}
			h.contentLength = n
		}
	case len("transfer-encoding"):
		if equalFold(name, "transfer-encoding") {
			h.hasTE = true
			h.chunked = hasSuffixFold(line[colon+1:], "chunked")
		}
	case len("connection"):
		if equalFold(name, "connection") {
			value := line[colon+1:]
			switch {
			case containsTokenFold(value, "close"):
				h.close = true
			case containsTokenFold(value, "keep-alive"):
				*keepAlive = true
			}
		}
	}
	return nil
}

// parseLength parses a Content-Length value: decimal digits only, at most 18 of them.
func parseLength(v []byte) (int64, bool) {
	if len(v) == 0 || len(v) > 18 {
		return 0, false
	}
	var n int64
	for _, c := range v {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}

// equalFold reports whether b equals s, ignoring ASCII case. s must hold only lower-case letters
// and '-': b[i]|0x20 then equals s[i] only for the same letter in either case, or for '-' and
// '\r' (a field name with a CR in it is invalid anyway, and taking it for a '-' is harmless).
func equalFold(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := range len(s) {
		if b[i]|0x20 != s[i] {
			return false
		}
	}
	return true
}

// hasSuffixFold reports whether the last comma-separated token of b is s (lower case).
func hasSuffixFold(b []byte, s string) bool {
	if i := bytes.LastIndexByte(b, ','); i >= 0 {
		b = b[i+1:]
	}
	return equalFold(httpwire.TrimOWS(b), s)
}

// containsTokenFold reports whether the comma-separated list b has the token s (lower case).
func containsTokenFold(b []byte, s string) bool {
	for len(b) > 0 {
		tok := b
		if i := bytes.IndexByte(b, ','); i >= 0 {
			tok, b = b[:i], b[i+1:]
		} else {
			b = nil
		}
		if equalFold(httpwire.TrimOWS(tok), s) {
			return true
		}
	}
	return false
}
