package httpserver

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"time"
)

const lingerTimeout = 500 * time.Millisecond

// conn is one client connection. Unread input is buf[r:w]; out collects the responses of one
// batch and is written once per read. It is a dispatch.Task: Run processes the buffered input.
type conn struct {
	srv        *Server
	nc         net.Conn
	id         uint64
	handler    Handler
	buf        []byte
	r, w       int
	discard    int64 // body bytes still to skip
	out        []byte
	closeAfter bool
	req        Request
	resp       Response
	done       chan struct{}
}

func (s *Server) newConn(nc net.Conn) *conn {
	c := &conn{
		srv: s, nc: nc, id: s.nextID.Add(1), handler: s.cfg.NewHandler(),
		buf: make([]byte, s.cfg.ReadBufferSize), out: make([]byte, 0, 4096),
	}
	c.resp.c = c
	if s.cfg.Pool != nil {
		c.done = make(chan struct{}, 1)
	}
	return c
}

func (c *conn) serve(ctx context.Context) {
	stop := context.AfterFunc(ctx, func() { c.nc.Close() })
	defer stop()
	defer c.nc.Close()
	for {
		n, err := c.nc.Read(c.buf[c.w:])
		if n > 0 {
			c.w += n
			c.processBatch()
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
			if !errors.Is(err, net.ErrClosed) && !isEOF(err) {
				c.srv.log.Debug("read", slog.Uint64("conn", c.id), slog.Any("err", err))
			}
			return
		}
	}
}

// processBatch processes the buffered requests inline or on the pool, and waits for it.
func (c *conn) processBatch() {
	if c.srv.cfg.Pool == nil {
		c.process()
		return
	}
	c.srv.cfg.Pool.Submit(c.id, c)
	<-c.done
}

// Run is the dispatch.Task entry point.
func (c *conn) Run() {
	c.process()
	c.done <- struct{}{}
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
	count := 0
	for !c.closeAfter {
		if c.discard > 0 {
			skip := min(c.discard, int64(c.w-c.r))
			c.r += int(skip)
			c.discard -= skip
			if c.discard > 0 {
				break
			}
		}
		if c.r == c.w {
			break
		}
		n, err := parseRequest(c.buf[c.r:c.w], &c.req)
		if err != nil {
			c.fail(err)
			break
		}
		if n == 0 {
			if c.w-c.r == len(c.buf) {
				c.failStatus(431)
			}
			break
		}
		c.r += n
		c.discard = c.req.ContentLength
		c.serveOne()
		count++
	}
	c.srv.observer.AddRequests(count)
}

// serveOne runs the handler on c.req; a panic becomes a 500 and closes the connection.
func (c *conn) serveOne() {
	mark := len(c.out)
	defer func() {
		if p := recover(); p != nil {
			c.srv.observer.Exception(KindPanic)
			c.srv.log.Error("handler panic", slog.Uint64("conn", c.id), slog.Any("panic", p))
			c.out = c.out[:mark]
			c.resp.written, c.resp.keepAlive = false, false
			c.resp.WriteString(500, "text/plain", "")
		}
	}()
	c.resp.reset(&c.req)
	c.handler.ServeRaw(&c.resp, &c.req)
	if !c.resp.written {
		panic("handler wrote no response")
	}
}

func (c *conn) fail(err error) {
	switch {
	case errors.Is(err, errVersion):
		c.failStatus(505)
	case errors.Is(err, errNotImplemented):
		c.failStatus(501)
	default:
		c.failStatus(400)
	}
}

// failStatus answers a request that could not be parsed, and closes the connection.
func (c *conn) failStatus(status int) {
	c.srv.observer.Exception(KindBadRequest)
	c.resp.keepAlive, c.resp.head, c.resp.http10, c.resp.written = false, false, false, false
	c.resp.WriteString(status, "text/plain", "")
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
	_ = tc.SetReadDeadline(time.Now().Add(lingerTimeout))
	for range 64 {
		if _, err := tc.Read(c.buf); err != nil {
			return
		}
	}
}
