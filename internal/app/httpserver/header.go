package httpserver

import (
	"bytes"

	"github.com/crankshaft/crankshaft/internal/httpwire"
)

// headerState collects what the server needs from the header fields of one request.
type headerState struct {
	hosts     int
	hasLength bool
	length    int64
	chunked   bool
	close     bool
	keepAlive bool
}

func (h *headerState) parseHeader(line []byte, r *Request) error {
	colon := bytes.IndexByte(line, ':')
	if colon <= 0 || !isToken(line[:colon]) { // also rejects obs-fold and space before the colon
		return errBadRequest
	}
	name, value := line[:colon], httpwire.TrimOWS(line[colon+1:])
	if !isFieldValue(value) {
		return errBadRequest
	}
	switch {
	case equalFold(name, "host"):
		h.hosts++
		r.Host = value
	case equalFold(name, "content-length"):
		return h.parseLength(value)
	case equalFold(name, "transfer-encoding"):
		h.chunked = true
	case equalFold(name, "connection"):
		h.parseConnection(value)
	}
	return nil
}

func (h *headerState) parseLength(v []byte) error {
	if len(v) == 0 {
		return errBadRequest
	}
	var n int64
	for _, c := range v {
		if !isDigit(c) {
			return errBadRequest
		}
		n = n*10 + int64(c-'0')
		if n > maxContentLength {
			return errBadRequest
		}
	}
	if h.hasLength && n != h.length {
		return errBadRequest
	}
	h.hasLength, h.length = true, n
	return nil
}

// parseConnection reads the comma-separated connection options.
func (h *headerState) parseConnection(v []byte) {
	for len(v) > 0 {
		opt := v
		if i := bytes.IndexByte(v, ','); i >= 0 {
			opt, v = v[:i], v[i+1:]
		} else {
			v = nil
		}
		opt = httpwire.TrimOWS(opt)
		switch {
		case equalFold(opt, "close"):
			h.close = true
		case equalFold(opt, "keep-alive"):
			h.keepAlive = true
		}
	}
}

// finish checks the header fields as a whole and fills the connection fields of r.
func (h *headerState) finish(r *Request) error {
	switch {
	case h.chunked && h.hasLength:
		return errBadRequest
	case h.chunked:
		return errNotImplemented
	case h.hosts > 1, h.hosts == 0 && !r.HTTP10:
		return errBadRequest
	}
	if h.hosts == 0 {
		r.Host = nil
	}
	r.ContentLength = h.length
	if r.HTTP10 {
		r.KeepAlive = h.keepAlive && !h.close
	} else {
		r.KeepAlive = !h.close
	}
	return nil
}

// isFieldValue rejects control characters other than horizontal tab.
func isFieldValue(b []byte) bool {
	for _, c := range b {
		if (c < ' ' && c != '\t') || c == 0x7f {
			return false
		}
	}
	return true
}

// equalFold compares b with the lower-case ASCII string s, ignoring the case of b.
func equalFold(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := 0; i < len(b); i++ {
		c := b[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != s[i] {
			return false
		}
	}
	return true
}
