package loadgen

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// HTTP/2 settings the generator announces and how it returns flow-control credit.
const (
	h2StreamWindow = 1 << 24 // SETTINGS_INITIAL_WINDOW_SIZE: no single response waits for credit
	h2ConnWindow   = 1 << 30 // the connection's receive window, raised at the start
	h2ReadBuffer   = 64 << 10
	h2WriteBuffer  = 64 << 10
)

// h2client drives one HTTP/2 connection: a reader goroutine parses frames, completes requests
// and, in the closed loop, starts new ones when it has handled all the bytes of a read; in rate
// mode a pacer goroutine also starts the requests that come due. Everything below mu is shared
// by them (and abort); the recorder is written under mu too.
type h2client struct {
	recorder // its cfg is the run's
	id       int
	req      *h2Request

	aborted atomic.Bool
	mu      sync.Mutex
	nc      net.Conn
	sess    *h2session // nil between connections
	next    int64      // rate mode: schedule index of the next request
	fails   int
	finish  int64
}

// h2session is one connection's protocol state.
type h2session struct {
	io       h2io
	bw       *bufio.Writer
	fr       *http2.Framer
	in       frameBuffer
	enc      *hpack.Encoder
	encBuf   bytes.Buffer
	block    []byte // the request's header block once HPACK encodes it the same way each time
	prev     []byte // the previous encoding, until block is known
	dec      *hpack.Decoder
	decoding *h2stream // the stream whose header block dec is decoding
	// blockBytes is how much of the block being decoded in pieces has come: past maxHeadBytes
	// (a response head's bound, as HTTP/1.1's) it is malformed, else a server's endless
	// CONTINUATION frames would grow the decoder without bound.
	blockBytes int
	hdr        headerCache
	said       said
	// endAfterHeaders: the block being decoded ends its stream (END_STREAM on its HEADERS).
	endAfterHeaders bool

	streams    map[uint32]*h2stream
	slots      []*h2stream // gRPC streaming: the long-lived streams
	pool       []*h2stream
	inflight   int // requests awaiting their response
	nextID     uint32
	ready      bool // the server's SETTINGS arrived
	goaway     bool // no new streams: the server is going away, or the stream IDs ran out
	failed     bool // a write or the server's frames broke the connection
	maxStreams int
	maxFrame   int
	sendWin    int64 // connection send window
	initWin    int64 // the server's initial stream window
	unacked    int64 // received bytes not yet credited back on the connection
	progress   int64 // when a frame last arrived, or a request left an idle connection
	// lastLatency is the latency of the last response (ns), which sizes coalesceWait.
	lastLatency int64
}

// h2stream is one stream and the response it is receiving.
type h2stream struct {
	id         uint32
	origin     int64 // where the latency of its request in flight counts from
	busy       bool  // a request (a message, when streaming) awaits its response
	open       bool  // streaming: the stream is open
	status     int
	grpcStatus int // -1 until the trailers say
	sendWin    int64
	unacked    int64
	msgs       grpcMessages
}

func newH2Client(cfg *runConfig, id int, sh *shard, req *h2Request) *h2client {
	return &h2client{recorder: newRecorder(cfg, sh), id: id, req: req}
}

func (c *h2client) tally() *counters { return &c.st }
func (c *h2client) stoppedAt() int64 { return c.finish }

// run connects, serves the connection until the end of the window and its drain, and reconnects
// after errors.
func (c *h2client) run(ctx context.Context) {
	defer func() {
		c.flushLatencies()
		c.finish = c.now()
		if c.cfg.rate > 0 && !c.aborted.Load() {
			c.st.unsent = max(0, c.cfg.scheduledBefore(c.id, c.cfg.end)-c.next)
		}
	}()
	var pacer sync.WaitGroup
	defer pacer.Wait()
	if c.cfg.rate > 0 {
		pctx, cancel := context.WithCancel(ctx)
		defer cancel()
		pacer.Go(func() { c.pace(pctx) })
	}
	for !c.aborted.Load() && !c.done(c.now()) {
		if err := c.connect(ctx); err != nil {
			c.connectFailed(ctx, err, &c.fails)
			continue
		}
		c.fails = 0
		c.serve()
	}
}

// done reports that the client will send no more requests.
func (c *h2client) done(now int64) bool {
	return now >= c.cfg.sendUntil || (c.cfg.rate > 0 && c.cfg.intended(c.id, c.next) >= c.cfg.end)
}

// connect dials (with ALPN h2 over TLS), writes the preface and the generator's settings.
func (c *h2client) connect(ctx context.Context) error {
	nc, err := c.cfg.dial(ctx)
	if err != nil {
		return err
	}
	if tc, ok := nc.(*tls.Conn); ok {
		if p := tc.ConnectionState().NegotiatedProtocol; p != "h2" {
			nc.Close()
			return fmt.Errorf("%s did not negotiate h2 over TLS (ALPN: %q)", c.cfg.addr, p)
		}
	}
	s := &h2session{streams: map[uint32]*h2stream{}, nextID: 1, maxStreams: c.cfg.streams,
		maxFrame: 16384, sendWin: 65535, initWin: 65535, progress: c.now()}
	s.in.buf = make([]byte, h2ReadBuffer)
	if err := s.io.attach(nc); err != nil {
		nc.Close()
		return err
	}
	s.bw = bufio.NewWriterSize(&s.io, h2WriteBuffer)
	s.fr = http2.NewFramer(s.bw, &s.in)
	s.fr.SetReuseFrames()
	s.enc = hpack.NewEncoder(&s.encBuf)
	s.dec = hpack.NewDecoder(4096, c.onField)
	s.bw.WriteString(http2.ClientPreface)
	s.fr.WriteSettings(http2.Setting{ID: http2.SettingInitialWindowSize, Val: h2StreamWindow},
		http2.Setting{ID: http2.SettingEnablePush, Val: 0})
	s.fr.WriteWindowUpdate(0, h2ConnWindow-65535)
	if err := s.bw.Flush(); err != nil {
		nc.Close()
		return fmt.Errorf("writing the HTTP/2 preface: %w", err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.aborted.Load() {
		nc.Close()
		return context.Canceled
	}
	c.nc, c.sess = nc, s
	nc.SetReadDeadline(c.cfg.base.Add(time.Duration(c.now() + c.cfg.timeout)))
	return nil
}

// serve reads frames until the connection ends or the run is over, then closes it.
func (c *h2client) serve() {
	c.sess.io.serve(c, c.sess)
	c.closeConn()
}

// step handles what one read brought: n bytes appended to the frame buffer, or err (n == 0 and
// no error is the end of the stream). It returns true when the connection must end.
func (c *h2client) step(s *h2session, n int, err error) bool {
	now := c.now()
	s.in.w += n
	if n > 0 && c.recording(now) {
		c.st.bytes += int64(n)
	}
	if n == 0 && err == nil {
		err = io.EOF
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if err == nil {
		c.handleFrames(s, now)
	}
	return c.afterRead(s, now, err)
}

// afterRead sends what is due and decides whether the connection ends (with mu held).
func (c *h2client) afterRead(s *h2session, now int64, err error) (end bool) {
	switch {
	case c.aborted.Load():
		return true
	case errors.Is(err, os.ErrDeadlineExceeded):
		if s.inflight > 0 && now >= s.progress+c.cfg.timeout {
			c.count(&c.st.errors.Timeout, now)
			if c.recording(now) {
				c.st.errors.Timeout += int64(s.inflight) - 1
			}
			s.inflight = 0
			return true
		}
		next := now + c.cfg.timeout
		if s.inflight > 0 {
			next = s.progress + c.cfg.timeout
		}
		c.nc.SetReadDeadline(c.cfg.base.Add(time.Duration(next)))
	case err != nil:
		if s.inflight > 0 || (!c.done(now) && !s.goaway) {
			c.count(&c.st.errors.Read, now)
		}
		return true
	}
	if s.failed {
		return true
	}
	if err := c.fill(s, now); err != nil {
		c.count(&c.st.errors.Write, now)
		return true
	}
	return (s.inflight == 0 && (c.done(now) || s.goaway))
}

// closeConn closes the connection; its requests still in flight count as dropped.
func (c *h2client) closeConn() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.nc == nil {
		return
	}
	c.nc.Close()
	if now := c.now(); c.recording(now) {
		c.st.dropped += int64(c.sess.inflight)
	}
	c.nc, c.sess = nil, nil
}

// abort stops the client from another goroutine: its current read returns at once.
func (c *h2client) abort() {
	c.aborted.Store(true)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.nc != nil {
		c.nc.SetDeadline(time.Unix(1, 0))
	}
}
