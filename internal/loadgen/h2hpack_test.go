package loadgen

import (
	"encoding/hex"
	"slices"
	"testing"

	"golang.org/x/net/http2/hpack"
)

// nginxBlock is a response header block nginx 1.22 sent over h2c: :status 200 indexed, then
// server, date, content-type and content-length as literals with incremental indexing, which
// nginx never refers to again: each response adds four entries to the dynamic table.
const nginxBlock = "887689aa6355e580ae212e1f6197d07abe94132a693f750401" +
	"38a05fb8d3d71b754c5a37ff5f87497ca58ae819aa5c023133"

// TestHeaderCacheKeepsTheTableInStep decodes nginx's block many times through the cache, then a
// block that refers to the dynamic table, and checks the fields against a plain decoder that
// decoded every block: the skipped copies must have been accounted for.
func TestHeaderCacheKeepsTheTableInStep(t *testing.T) {
	a, _ := hex.DecodeString(nginxBlock)
	b := []byte{0x88, 0xbe, 0xbf, 0xc0, 0xc1} // :status 200 and dynamic entries 62 to 65
	for _, copies := range []int{1, 2, 7, maxReplay - 1, maxReplay, 3 * maxReplay} {
		c := &h2client{}
		s := &h2session{}
		c.sess = s
		s.dec = hpack.NewDecoder(4096, c.onField)
		ref := hpack.NewDecoder(4096, nil)
		for i := range copies {
			st := &h2stream{grpcStatus: -1}
			s.decoding = st
			if err := c.decodeWhole(s, st, a); err != nil || st.status != 200 {
				t.Fatalf("copy %d: status %d, %v", i, st.status, err)
			}
			if _, err := ref.DecodeFull(a); err != nil {
				t.Fatal(err)
			}
		}
		if copies > 1 && s.hdr.skipped != copies-1 {
			t.Errorf("%d copies: %d skipped, want all but the first", copies, s.hdr.skipped)
		}
		var got []hpack.HeaderField
		s.dec.SetEmitFunc(func(f hpack.HeaderField) { got = append(got, f) })
		if err := c.decodeWhole(s, &h2stream{}, b); err != nil {
			t.Fatalf("%d copies: %v", copies, err)
		}
		want, err := ref.DecodeFull(b)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("%d copies: got %v, want %v (%v)", copies, got, want, err)
		}
	}
}

// TestHeaderCacheReplaysSkippedBlocks: an entry added before the cached copies moves down the
// table with each copy; a later block that refers to it by index finds it only if the skipped
// copies were fed to the decoder.
func TestHeaderCacheReplaysSkippedBlocks(t *testing.T) {
	a, _ := hex.DecodeString(nginxBlock)
	old := append([]byte{0x40, 5}, "x-old"...) // literal with incremental indexing, new name
	old = append(old, 1, '1')
	for _, copies := range []int{1, 2, 7, 18} {
		c := &h2client{}
		s := &h2session{}
		c.sess = s
		s.dec = hpack.NewDecoder(4096, c.onField)
		for _, block := range append([][]byte{old}, slices.Repeat([][]byte{a}, copies)...) {
			st := &h2stream{}
			s.decoding = st
			if err := c.decodeWhole(s, st, block); err != nil {
				t.Fatal(err)
			}
		}
		// x-old is now entry 62 + 4 per copy (each copy adds four entries).
		b := append([]byte{0x88}, indexed(62+4*copies)...)
		var got []hpack.HeaderField
		s.dec.SetEmitFunc(func(f hpack.HeaderField) { got = append(got, f) })
		err := c.decodeWhole(s, &h2stream{}, b)
		if err != nil || len(got) != 2 || got[1].Name != "x-old" {
			t.Errorf("%d copies: %v, %v; want :status and x-old", copies, got, err)
		}
	}
}

// indexed is an HPACK indexed header field representation (RFC 7541 6.1) for index i.
func indexed(i int) []byte {
	if i < 127 {
		return []byte{0x80 | byte(i)}
	}
	out := []byte{0xff}
	for i -= 127; i >= 128; i >>= 7 {
		out = append(out, byte(i&0x7f)|0x80)
	}
	return append(out, byte(i))
}
