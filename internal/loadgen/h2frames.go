package loadgen

import (
	"errors"
	"io"
	"strconv"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
	"google.golang.org/grpc/codes"
)

// frameBuffer holds the bytes read from a connection; the Framer reads whole frames from it, so
// a read deadline never leaves the Framer with half a frame.
type frameBuffer struct {
	buf  []byte
	r, w int
}

const frameHeaderLen = 9

func (b *frameBuffer) Read(p []byte) (int, error) {
	n := copy(p, b.buf[b.r:b.w])
	b.r += n
	if n == 0 && len(p) > 0 {
		return 0, io.ErrUnexpectedEOF
	}
	return n, nil
}

// whole reports whether the buffer starts with a complete frame.
func (b *frameBuffer) whole() bool {
	h := b.buf[b.r:b.w]
	if len(h) < frameHeaderLen {
		return false
	}
	return len(h) >= frameHeaderLen+(int(h[0])<<16|int(h[1])<<8|int(h[2]))
}

// compact makes room for the next read: at least a largest frame.
func (b *frameBuffer) compact() {
	switch {
	case b.r == b.w:
		b.r, b.w = 0, 0
	case len(b.buf)-b.w < frameHeaderLen+http2MaxFrame:
		b.w = copy(b.buf, b.buf[b.r:b.w])
		b.r = 0
	}
}

// http2MaxFrame is the largest frame the generator accepts (SETTINGS_MAX_FRAME_SIZE default).
const http2MaxFrame = 16384

var errH2Protocol = errors.New("HTTP/2 protocol error")

// errH2HeaderBlock is a response header block, in pieces, longer than maxHeadBytes.
var errH2HeaderBlock = parseError("an HTTP/2 header block longer than 16 KiB")

// handleFrames handles every whole frame in the buffer (with mu held). An error breaks the
// connection and counts as malformed.
func (c *h2client) handleFrames(s *h2session, now int64) {
	for s.in.whole() {
		s.progress = now
		f, err := s.fr.ReadFrame()
		if err == nil {
			err = c.handle(s, f, now)
		}
		if err != nil {
			c.count(&c.st.errors.Malformed, now)
			s.failed = true
			return
		}
	}
}

func (c *h2client) handle(s *h2session, f http2.Frame, now int64) error {
	switch f := f.(type) {
	case *http2.DataFrame:
		s.unacked += int64(f.Length)
		st := s.streams[f.StreamID]
		if st == nil {
			return nil
		}
		if c.req.streaming {
			st.unacked += int64(f.Length)
			for n := st.msgs.feed(f.Data()); n > 0 && st.busy; n-- {
				c.complete(s, st, now, false)
			}
			if st.unacked >= h2StreamWindow/2 && !f.StreamEnded() {
				s.fr.WriteWindowUpdate(st.id, uint32(st.unacked))
				st.unacked = 0
			}
		}
		if f.StreamEnded() {
			c.endStream(s, st, now)
		}
	case *http2.HeadersFrame:
		st := s.streams[f.StreamID]
		if st == nil {
			st = &h2stream{} // decoded all the same: the dynamic table must follow
		}
		if f.HeadersEnded() {
			s.decoding = st
			err := c.decodeWhole(s, st, f.HeaderBlockFragment())
			s.decoding = nil
			if err == nil && f.StreamEnded() && st.id != 0 {
				c.endStream(s, st, now)
			}
			return err
		}
		s.hdr.cacheable = false
		if err := c.catchUp(s); err != nil {
			return err
		}
		s.decoding, s.endAfterHeaders, s.blockBytes = st, f.StreamEnded(), 0
		return c.decode(s, f.HeaderBlockFragment(), false, now)
	case *http2.ContinuationFrame:
		return c.decode(s, f.HeaderBlockFragment(), f.HeadersEnded(), now)
	case *http2.RSTStreamFrame:
		if st := s.streams[f.StreamID]; st != nil {
			c.count(&c.st.errors.Reset, now)
			c.forget(s, st)
		}
	case *http2.SettingsFrame:
		if f.IsAck() {
			return nil
		}
		err := f.ForeachSetting(func(v http2.Setting) error { return c.setting(s, v) })
		if err != nil {
			return err
		}
		s.ready = true
		s.fr.WriteSettingsAck()
	case *http2.PingFrame:
		if !f.IsAck() {
			s.fr.WritePing(true, f.Data)
		}
	case *http2.WindowUpdateFrame:
		if f.StreamID == 0 {
			s.sendWin += int64(f.Increment)
		} else if st := s.streams[f.StreamID]; st != nil {
			st.sendWin += int64(f.Increment)
		}
	case *http2.GoAwayFrame:
		s.goaway = true
		for id, st := range s.streams {
			if id > f.LastStreamID { // never processed
				if st.busy && c.recording(now) {
					c.st.dropped++
				}
				c.forget(s, st)
			}
		}
	}
	return nil
}

// setting applies one of the server's settings.
func (c *h2client) setting(s *h2session, v http2.Setting) error {
	switch v.ID {
	case http2.SettingMaxConcurrentStreams:
		s.maxStreams = min(c.cfg.streams, int(min(v.Val, MaxStreams)))
		if int(v.Val) < c.cfg.streams && (c.st.streamLimit == 0 || int(v.Val) < c.st.streamLimit) {
			c.st.streamLimit = int(v.Val)
		}
	case http2.SettingInitialWindowSize:
		delta := int64(v.Val) - s.initWin
		s.initWin = int64(v.Val)
		for _, st := range s.streams {
			st.sendWin += delta
		}
	case http2.SettingMaxFrameSize:
		s.maxFrame = int(v.Val)
	case http2.SettingHeaderTableSize:
		s.enc.SetMaxDynamicTableSizeLimit(v.Val)
		s.block, s.prev = nil, nil
	}
	return v.Valid()
}

// decode feeds a header block fragment to the decoder; at the end of the block, a block that
// ended its stream completes it.
func (c *h2client) decode(s *h2session, frag []byte, ended bool, now int64) error {
	if s.decoding == nil {
		return errH2Protocol
	}
	if s.blockBytes += len(frag); s.blockBytes > maxHeadBytes {
		return errH2HeaderBlock
	}
	if _, err := s.dec.Write(frag); err != nil {
		return err
	}
	if !ended {
		return nil
	}
	st := s.decoding
	s.decoding = nil
	if err := s.dec.Close(); err != nil {
		return err
	}
	if s.endAfterHeaders && st.id != 0 {
		c.endStream(s, st, now)
	}
	return nil
}

// onField notes the fields of a response the generator needs: :status and grpc-status.
func (c *h2client) onField(f hpack.HeaderField) {
	s := c.sess
	st := s.decoding
	switch f.Name {
	case ":status":
		st.status, _ = strconv.Atoi(f.Value)
		s.said.status = st.status
	case "grpc-status":
		if code, err := strconv.Atoi(f.Value); err == nil && code >= 0 && code <= int(codes.Unauthenticated) {
			st.grpcStatus = code
		} else {
			st.grpcStatus = int(codes.Unknown)
		}
		s.said.grpcStatus = st.grpcStatus
	}
}

// endStream handles the end of a stream's response: it completes a unary request, and ends a
// long-lived stream (whose message in flight, if any, failed).
func (c *h2client) endStream(s *h2session, st *h2stream, now int64) {
	switch {
	case !c.req.grpc:
		s.lastLatency = now - st.origin
		c.response(now, st.origin, st.status/100, false)
	case !c.req.streaming:
		c.complete(s, st, now, c.grpcBad(st, now))
	case st.busy && st.grpcStatus > 0:
		c.complete(s, st, now, c.grpcBad(st, now))
	case st.busy && c.recording(now):
		c.st.dropped++ // the server ended the stream without answering
	}
	c.forget(s, st)
}

// grpcBad counts a call's gRPC status and reports whether it is a bad response: a status other
// than OK, none at all (Unknown), or an HTTP status other than 200.
func (c *h2client) grpcBad(st *h2stream, now int64) bool {
	code := st.grpcStatus
	if code < 0 {
		code = int(codes.Unknown)
	}
	if c.recording(now) {
		c.st.grpc[code]++
	}
	return code != 0 || st.status != 200
}

// complete records the response to the stream's request in flight.
func (c *h2client) complete(s *h2session, st *h2stream, now int64, bad bool) {
	if !st.busy {
		return
	}
	if c.req.streaming && !bad && c.recording(now) {
		c.st.grpc[0]++
	}
	s.lastLatency = now - st.origin
	c.response(now, st.origin, st.status/100, bad)
	st.busy = false
	s.inflight--
}

// forget removes a finished or reset stream; its request in flight, if any, is no longer awaited.
func (c *h2client) forget(s *h2session, st *h2stream) {
	if st.busy {
		st.busy = false
		s.inflight--
	}
	delete(s.streams, st.id)
	if c.req.streaming {
		st.open = false
		st.msgs.reset()
		return
	}
	s.pool = append(s.pool, st)
}

// streamServe is the portable serve loop: blocking net.Conn reads, each handed to step.
func streamServe(c *h2client, s *h2session) {
	for {
		s.in.compact()
		n, err := s.io.nc.Read(s.in.buf[s.in.w:])
		if n > 0 && c.step(s, n, nil) {
			return
		}
		if (err != nil || n == 0) && c.step(s, 0, ignoreEOF(err)) {
			return
		}
	}
}

// ignoreEOF maps io.EOF to nil: step takes a read of 0 bytes without an error as the end.
func ignoreEOF(err error) error {
	if errors.Is(err, io.EOF) {
		return nil
	}
	return err
}
