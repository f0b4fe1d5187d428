package httpserver

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"sync/atomic"
	"time"
)

const (
	lingerTimeout = 500 * time.Millisecond
	// maxSlots bounds the pipelined requests dispatched at once for one connection.
	maxSlots = 32
)

// conn is one client connection. Unread input is buf[r:w]; out collects the responses to what
// one read brought and is written once.
type conn struct {
	srv        *Server
	nc         net.Conn // nil when an event loop serves the connection
	fd         int      // the event loop's socket (-1 once it gave it up)
	id         uint64
	buf        []byte
	r, w       int
	discard    int64 // body bytes still to skip
	out        []byte
	closeAfter bool
	failure    int     // status to answer a request that could not be parsed (0 = none)
	slots      []*slot // slots[0] writes straight into out when processing inline
	pending    atomic.Int32
	done       chan struct{}
}

// slot is one request being answered: a dispatch.Task with its own handler and output.
type slot struct {
	c       *conn
	handler Handler
	req     Request
	resp    Response
	out     []byte
}

func (s *Server) newConn(nc net.Conn) *conn {
	c := &conn{srv: s, nc: nc, id: s.nextID.Add(1), buf: make([]byte, s.cfg.ReadBufferSize),
		out: make([]byte, 0, 4096)}
	first := c.slot(0)
	first.resp.out = &c.out
	if s.cfg.Pool != nil {
		c.done = make(chan struct{}, 1)
		first.resp.out = &first.out
	}
	return c
}

// slot returns slot i, creating it on first use.
func (c *conn) slot(i int) *slot {
	if i == len(c.slots) {
		s := &slot{c: c, handler: c.srv.cfg.NewHandler()}
		s.resp.srv, s.resp.out = c.srv, &s.out
		c.slots = append(c.slots, s)
	}
	return c.slots[i]
}

func (c *conn) serve(ctx context.Context) {
	stop := context.AfterFunc(ctx, func() { c.nc.Close() })
	defer stop()
	defer c.nc.Close()
	for {
		n, err := c.nc.Read(c.buf[c.w:])
		if n > 0 {
			c.w += n
			c.process()
			if len(c.out) > 0 {
				if _, werr := c.nc.Write(c.out); werr != nil {
					return
				}
				c.out = c.out[:0]
			}
			c.compact()
			if c.closeAfter {
				c.lingerClose()
				return
			}
		}
		if err != nil {
			if !isEOF(err) {
				c.srv.log.Debug("read", slog.Uint64("conn", c.id), slog.Any("err", err))
			}
			return
		}
	}
}

// compact moves unread input to the front of buf.
func (c *conn) compact() {
	if c.r == c.w {
		c.r, c.w = 0, 0
		return
	}
	if c.r > 0 {
		c.w = copy(c.buf, c.buf[c.r:c.w])
		c.r = 0
	}
}

// process answers every complete request in buf[r:w], appending the responses to out.
func (c *conn) process() {
	if c.srv.cfg.Pool == nil {
		c.processInline()
	} else {
		c.processDispatched()
	}
	if c.failure != 0 && !c.closeAfter {
		c.srv.observer.Exception(KindBadRequest)
		s := c.slots[0]
		s.resp.out = &c.out
		s.resp.reset(&Request{})
		s.resp.WriteString(c.failure, "text/plain", "")
		c.closeAfter = true
	}
}

func (c *conn) processInline() {
	s, count := c.slots[0], 0
	for !c.closeAfter && c.next(&s.req) {
		c.serveSlot(s)
		c.closeAfter = s.resp.closed
		count++
	}
	c.srv.observer.AddRequests(count)
}

// processDispatched submits the buffered requests, one task each, waits for all of them and
// appends their responses in request order.
func (c *conn) processDispatched() {
	for !c.closeAfter && c.failure == 0 {
		n := 0
		for n < maxSlots {
			s := c.slot(n)
			if !c.next(&s.req) {
				break
			}
			n++
			if !s.req.KeepAlive {
				break // nothing after a closing request is answered
			}
		}
		if n == 0 {
			return
		}
		c.pending.Store(int32(n))
		for _, s := range c.slots[:n] {
			c.srv.cfg.Pool.Submit(c.id, s)
		}
		<-c.done
		for _, s := range c.slots[:n] {
			c.out = append(c.out, s.out...)
			s.out = s.out[:0]
			if s.resp.closed {
				c.closeAfter = true
				break
			}
		}
		c.srv.observer.AddRequests(n)
	}
}

// Run answers the slot's request on a dispatch worker.
func (s *slot) Run() {
	s.c.serveSlot(s)
	if s.c.pending.Add(-1) == 0 {
		s.c.done <- struct{}{}
	}
}

// next parses the next buffered request into req, skipping the previous request's body. It
// returns false when more input is needed or the input is malformed (failure is then set).
func (c *conn) next(req *Request) bool {
	if c.discard > 0 {
		skip := min(c.discard, int64(c.w-c.r))
		c.r += int(skip)
		c.discard -= skip
		if c.discard > 0 {
			return false
		}
	}
	if c.r == c.w {
		return false
	}
	n, err := parseRequest(c.buf[c.r:c.w], req)
	switch {
	case err != nil:
		c.failure = failureStatus(err)
		return false
	case n == 0:
		if c.w-c.r == len(c.buf) {
			c.failure = 431
		}
		return false
	}
	c.r += n
	c.discard = req.ContentLength
	return true
}

// serveSlot runs the handler; a panic becomes a 500 that closes the connection.
func (c *conn) serveSlot(s *slot) {
	mark := len(*s.resp.out)
	defer func() {
		if p := recover(); p != nil {
			c.srv.observer.Exception(KindPanic)
			c.srv.log.Error("handler panic", slog.Uint64("conn", c.id), slog.Any("panic", p))
			*s.resp.out = (*s.resp.out)[:mark]
			s.resp.written, s.resp.keepAlive = false, false
			s.resp.WriteString(500, "text/plain", "")
		}
	}()
	s.resp.reset(&s.req)
	s.handler.ServeRaw(&s.resp, &s.req)
	if !s.resp.written {
		panic("handler wrote no response")
	}
}

func failureStatus(err error) int {
	switch {
	case errors.Is(err, errVersion):
		return 505
	case errors.Is(err, errNotImplemented):
		return 501
	}
	return 400
}

func isEOF(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed)
}

// lingerClose half-closes the connection and drains what the client still sends for a moment,
// so that the last response is not lost to a reset when unread input remains.
func (c *conn) lingerClose() {
	tc, ok := c.nc.(*net.TCPConn)
	if !ok {
		return
	}
	if tc.CloseWrite() != nil {
		return
	}
	drain(tc, c.buf)
}

// drain reads what the client still sends, into buf, for at most lingerTimeout and 64 reads: the
// rest of a half-closed connection (both serving paths).
func drain(r interface {
	Read([]byte) (int, error)
	SetReadDeadline(time.Time) error
}, buf []byte) {
	_ = r.SetReadDeadline(time.Now().Add(lingerTimeout))
	for range 64 {
		if _, err := r.Read(buf); err != nil {
			return
		}
	}
}
