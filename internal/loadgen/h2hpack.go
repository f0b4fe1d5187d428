package loadgen

import (
	"bytes"

	"golang.org/x/net/http2/hpack"
)

// headerCache saves decoding a response header block identical to the previous one. Servers
// repeat the same block for every response (nginx: the same bytes until its Date changes), and
// HPACK-decoding it (Huffman strings, a dynamic table insert and eviction per literal) is most of
// an HTTP/2 client's user time. The cache holds only a block that decodes on an empty dynamic
// table, so that what it says does not depend on the table. Its effect on the table still
// counts: before the decoder sees another block, the skipped copies are fed to it again (with
// emission off), at most maxReplay of them, since after that many every older entry is evicted.
type headerCache struct {
	block      []byte
	cacheable  bool // block references no dynamic-table entry
	status     int  // what block says; -1 when it has no :status
	grpcStatus int  // -1 when it has no grpc-status
	skipped    int  // copies of block not fed to the decoder
}

// maxReplay bounds the skipped copies fed back: every table entry is at least 32 bytes (RFC 7541
// 4.1), so maxReplay copies that add any entry fill a 4096-byte table (the default, which the
// generator never raises) with their own entries.
const maxReplay = 4096/32 + 1

// decodeWhole decodes a complete header block for st, from the cache when it can.
func (c *h2client) decodeWhole(s *h2session, st *h2stream, block []byte) error {
	hc := &s.hdr
	if hc.cacheable && bytes.Equal(block, hc.block) {
		hc.skipped++
		if hc.status >= 0 {
			st.status = hc.status
		}
		if hc.grpcStatus >= 0 {
			st.grpcStatus = hc.grpcStatus
		}
		return nil
	}
	if err := c.catchUp(s); err != nil {
		return err
	}
	s.said = said{status: -1, grpcStatus: -1}
	if _, err := s.dec.Write(block); err != nil {
		return err
	}
	if err := s.dec.Close(); err != nil {
		return err
	}
	hc.block = append(hc.block[:0], block...)
	hc.status, hc.grpcStatus = s.said.status, s.said.grpcStatus
	_, err := hpack.NewDecoder(4096, nil).DecodeFull(block)
	hc.cacheable = err == nil
	return nil
}

// catchUp feeds the decoder the copies of the cached block it skipped, and forgets the cache
// when a block comes in pieces (those are decoded as they come).
func (c *h2client) catchUp(s *h2session) error {
	hc := &s.hdr
	if hc.skipped == 0 {
		return nil
	}
	s.dec.SetEmitEnabled(false)
	defer s.dec.SetEmitEnabled(true)
	for range min(hc.skipped, maxReplay) {
		if _, err := s.dec.Write(hc.block); err != nil {
			return err
		}
		if err := s.dec.Close(); err != nil {
			return err
		}
	}
	hc.skipped = 0
	return nil
}

// said is what the header block being decoded said, for the cache.
type said struct{ status, grpcStatus int }
