package httpserver

import (
	"bytes"
	"errors"
)

// Request is one parsed HTTP/1.x request head. Its byte slices point into the connection's read
// buffer and are valid only while the handler runs.
type Request struct {
	Method []byte
	Target []byte // request-target as sent
	Path   []byte // Target without scheme, authority and query
	Query  []byte // after '?', without it
	Host   []byte
	// HTTP10 is true for an HTTP/1.0 request.
	HTTP10 bool
	// KeepAlive is true when the connection stays open after this request's response.
	KeepAlive bool
	// ContentLength is the body length the server discards after the head (0 when absent).
	ContentLength int64
}

// IsHead reports whether the request is a HEAD (the response then carries no body).
func (r *Request) IsHead() bool { return string(r.Method) == "HEAD" }

// IsGetOrHead reports whether the method is GET or HEAD.
func (r *Request) IsGetOrHead() bool { return string(r.Method) == "GET" || r.IsHead() }

// Parse errors; each maps to a status code sent before the connection is closed.
var (
	errBadRequest     = errors.New("bad request")
	errVersion        = errors.New("HTTP version not supported")
	errNotImplemented = errors.New("transfer-encoding not implemented")
)

const (
	maxHeaders       = 100
	maxContentLength = 1 << 40
)

// parseRequest parses one request head at the start of b into r. It returns the head's length,
// or 0 and no error when b does not yet hold a complete head.
func parseRequest(b []byte, r *Request) (int, error) {
	pos := 0
	for pos < len(b) && (b[pos] == '\r' || b[pos] == '\n') { // tolerate blank lines before a request
		pos++
	}
	line, next, ok := nextLine(b, pos)
	if !ok {
		return 0, nil
	}
	if err := parseRequestLine(line, r); err != nil {
		return 0, err
	}
	h := headerState{}
	for i := 0; ; i++ {
		line, next, ok = nextLine(b, next)
		if !ok {
			return 0, nil
		}
		if len(line) == 0 {
			break
		}
		if i == maxHeaders {
			return 0, errBadRequest
		}
		if err := h.parseHeader(line, r); err != nil {
			return 0, err
		}
	}
	if err := h.finish(r); err != nil {
		return 0, err
	}
	return next, nil
}

// nextLine returns the line starting at pos without its LF (and CR), and the offset after it.
func nextLine(b []byte, pos int) (line []byte, next int, ok bool) {
	i := bytes.IndexByte(b[pos:], '\n')
	if i < 0 {
		return nil, 0, false
	}
	line = b[pos : pos+i]
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	return line, pos + i + 1, true
}

func parseRequestLine(line []byte, r *Request) error {
	sp := bytes.IndexByte(line, ' ')
	if sp <= 0 || !isToken(line[:sp]) {
		return errBadRequest
	}
	r.Method = line[:sp]
	rest := line[sp+1:]
	sp = bytes.IndexByte(rest, ' ')
	if sp <= 0 || !isTarget(rest[:sp]) {
		return errBadRequest
	}
	r.Target = rest[:sp]
	switch proto := rest[sp+1:]; {
	case string(proto) == "HTTP/1.1":
		r.HTTP10 = false
	case string(proto) == "HTTP/1.0":
		r.HTTP10 = true
	case len(proto) == 8 && string(proto[:5]) == "HTTP/" && isDigit(proto[5]) && proto[6] == '.' && isDigit(proto[7]):
		return errVersion
	default:
		return errBadRequest
	}
	return splitTarget(r)
}

// splitTarget fills Path and Query from Target (origin-form, absolute-form or "*").
func splitTarget(r *Request) error {
	t := r.Target
	if t[0] != '/' && t[0] != '*' {
		i := bytes.Index(t, []byte("://"))
		if i <= 0 {
			return errBadRequest
		}
		t = t[i+3:]
		j := bytes.IndexByte(t, '/')
		if j < 0 {
			t = []byte("/")
		} else {
			t = t[j:]
		}
	}
	r.Path, r.Query = t, nil
	if q := bytes.IndexByte(t, '?'); q >= 0 {
		r.Path, r.Query = t[:q], t[q+1:]
	}
	return nil
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// isTarget accepts visible ASCII and obs-text: no controls, no spaces.
func isTarget(b []byte) bool {
	for _, c := range b {
		if c <= ' ' || c == 0x7f {
			return false
		}
	}
	return true
}

// isToken reports whether b is a non-empty RFC 9110 token.
func isToken(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	for _, c := range b {
		if !tokenChar(c) {
			return false
		}
	}
	return true
}

func tokenChar(c byte) bool {
	switch {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		return true
	}
	switch c {
	case '!', '#', '$', '%', '&', '\'', '*', '+', '-', '.', '^', '_', '`', '|', '~':
		return true
	}
	return false
}
