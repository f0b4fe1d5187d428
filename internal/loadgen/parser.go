package loadgen

import (
	"bytes"
	"errors"

	"github.com/crankshaft/crankshaft/internal/httpwire"
)

// The parser's limits: a response head or a chunk-size/trailer line longer than these is malformed.
const (
	maxHeadBytes = 16 << 10
	maxLineBytes = 4 << 10
)

// errMalformed is the root of every parse error; the worker counts them as malformed responses.
var errMalformed = errors.New("malformed response")

// parseError says what was wrong with a response. It matches errMalformed with errors.Is.
type parseError string

func (e parseError) Error() string        { return "malformed response: " + string(e) }
func (e parseError) Is(target error) bool { return target == errMalformed }

type pstate uint8

const (
	stHead       pstate = iota // waiting for a complete status line and header block
	stBody                     // Content-Length body: remain bytes left
	stChunkSize                // waiting for a chunk-size line
	stChunkData                // remain bytes of chunk data left
	stChunkCRLF                // waiting for the CRLF that ends a chunk's data
	stTrailer                  // trailer lines up to an empty line
	stUntilClose               // body ends when the server closes the connection
)

// respParser reads HTTP/1.1 responses incrementally from a byte stream without allocating. Heads
// and chunk-size lines must be whole in the buffer it is given; bodies are skipped as they arrive.
type respParser struct {
	state  pstate
	remain int64
	// headOnly is set for HEAD requests: responses to them have no body whatever their headers say.
	headOnly bool
	// Set when a response completes: its status code and whether the server closes after it.
	status int
	close  bool
	// last is the previous response head and lastHead what it said. Servers send the same head
	// over and over (until their Date changes), so comparing bytes skips most parsing.
	last     []byte
	lastHead head
}

// maxCachedHead is the largest head the parser remembers.
const maxCachedHead = 1024

// parse consumes bytes of b and returns how many it used. done reports that a whole final response
// ended within them (its status and close are in p); parse returns right after it, so the caller
// loops while it makes progress. n == 0 with done false means more bytes are needed.
func (p *respParser) parse(b []byte) (n int, done bool, err error) {
	for {
		var used int
		switch p.state {
		case stHead:
			used, err = p.parseHead(b[n:])
		case stBody, stChunkData:
			used = int(min(p.remain, int64(len(b)-n)))
			p.remain -= int64(used)
			if p.remain == 0 {
				p.state = p.afterData()
			}
		case stChunkSize:
			used, err = p.parseChunkSize(b[n:])
		case stChunkCRLF:
			used, err = p.parseChunkCRLF(b[n:])
		case stTrailer:
			used, err = p.parseTrailer(b[n:])
		case stUntilClose:
			return len(b), false, nil
		}
		n += used
		if err != nil || used == 0 {
			return n, false, err
		}
		if p.state == stHead && p.status >= 200 {
			return n, true, nil
		}
	}
}

// afterData is the state after a body or a chunk's data has been read.
func (p *respParser) afterData() pstate {
	if p.state == stChunkData {
		return stChunkCRLF
	}
	return stHead
}

// eof is called when the server closed the connection. It reports whether that ended a response
// (one delimited by the close) and returns an error when a response was cut short.
func (p *respParser) eof(pending int) (done bool, err error) {
	switch {
	case p.state == stUntilClose:
		p.state, p.close = stHead, true
		return true, nil
	case p.state != stHead || pending > 0:
		return false, parseError("truncated by connection close")
	}
	return false, nil
}

// reset forgets any partial response (after the connection it came on was closed).
func (p *respParser) reset() {
	p.state, p.remain, p.status, p.close = stHead, 0, 0, false
}

// parseHead reads a status line and headers when the whole head is in b, and decides how the body
// is delimited (RFC 9112 section 6.3).
func (p *respParser) parseHead(b []byte) (int, error) {
	if err := checkStatusPrefix(b); err != nil {
		return 0, err
	}
	h, used, err := p.head(b)
	if err != nil || used == 0 {
		return 0, err
	}
	p.status, p.close = h.status, h.close
	switch {
	case h.status < 200:
		if h.status == 101 {
			return 0, parseError("unexpected 101 Switching Protocols")
		}
		p.status = h.status // interim response: no body, the final one follows
	case p.headOnly || h.status == 204 || h.status == 304:
	case h.chunked:
		p.state = stChunkSize
	case h.hasTE:
		p.state, p.close = stUntilClose, true
	case h.contentLength > 0:
		p.state, p.remain = stBody, h.contentLength
	case h.contentLength < 0:
		p.state, p.close = stUntilClose, true
	}
	return used, nil
}

// head returns the parsed head at the start of b and its length, or 0 when it is not complete.
func (p *respParser) head(b []byte) (head, int, error) {
	if n := len(p.last); n > 0 && len(b) >= n && bytes.Equal(b[:n], p.last) {
		return p.lastHead, n, nil
	}
	h, used, err := parseHeader(b[:min(len(b), maxHeadBytes)])
	switch {
	case err != nil:
		return h, 0, err
	case used == 0 && len(b) >= maxHeadBytes:
		return h, 0, parseError("response head too large")
	case used > 0 && used <= maxCachedHead:
		p.last, p.lastHead = append(p.last[:0], b[:used]...), h
	}
	return h, used, nil
}

// checkStatusPrefix rejects a response early when its first bytes cannot start "HTTP/1.".
func checkStatusPrefix(b []byte) error {
	const prefix = "HTTP/1."
	k := min(len(b), len(prefix))
	if string(b[:k]) != prefix[:k] {
		return parseError("no HTTP/1.x status line")
	}
	return nil
}

// parseChunkSize reads "hex-size[;ext]\r\n".
func (p *respParser) parseChunkSize(b []byte) (int, error) {
	line, used, err := cutLine(b)
	if err != nil || used == 0 {
		return 0, err
	}
	if i := bytes.IndexByte(line, ';'); i >= 0 {
		line = line[:i]
	}
	line = httpwire.TrimOWS(line)
	if len(line) == 0 || len(line) > 15 {
		return 0, parseError("bad chunk size")
	}
	var size int64
	for _, c := range line {
		d := unhex(c)
		if d < 0 {
			return 0, parseError("bad chunk size")
		}
		size = size<<4 | int64(d)
	}
	if size == 0 {
		p.state = stTrailer
	} else {
		p.state, p.remain = stChunkData, size
	}
	return used, nil
}

// parseChunkCRLF reads the CRLF after a chunk's data.
func (p *respParser) parseChunkCRLF(b []byte) (int, error) {
	if len(b) < 2 {
		if len(b) == 1 && b[0] != '\r' {
			return 0, parseError("chunk data longer than its size")
		}
		return 0, nil
	}
	if b[0] != '\r' || b[1] != '\n' {
		return 0, parseError("chunk data longer than its size")
	}
	p.state = stChunkSize
	return 2, nil
}

// parseTrailer skips trailer fields up to the empty line that ends a chunked body.
func (p *respParser) parseTrailer(b []byte) (int, error) {
	line, used, err := cutLine(b)
	if err != nil || used == 0 {
		return 0, err
	}
	if len(line) == 0 {
		p.state = stHead
	}
	return used, nil
}

// cutLine returns the line at the start of b without its CRLF and the bytes it took, or used == 0
// when the line is not complete yet.
func cutLine(b []byte) (line []byte, used int, err error) {
	i := bytes.IndexByte(b, '\n')
	if i < 0 {
		if len(b) > maxLineBytes {
			return nil, 0, parseError("line too long")
		}
		return nil, 0, nil
	}
	if i == 0 || b[i-1] != '\r' {
		return nil, 0, parseError("line not ended by CRLF")
	}
	return b[:i-1], i + 1, nil
}

func unhex(c byte) int {
	switch {
	case '0' <= c && c <= '9':
		return int(c - '0')
	case 'a' <= c && c <= 'f':
		return int(c - 'a' + 10)
	case 'A' <= c && c <= 'F':
		return int(c - 'A' + 10)
	}
	return -1
}
