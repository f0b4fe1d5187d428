package loadgen

import "testing"

// FuzzRespParser: any byte stream, cut into any chunk size, is parsed without a panic or a loop,
// and never more bytes are taken than given.
func FuzzRespParser(f *testing.F) {
	f.Add([]byte(hello+hello), uint8(7), false)
	f.Add([]byte("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nHello\r\n0\r\nX: a\r\n\r\n"), uint8(3), false)
	f.Add([]byte("HTTP/1.1 204 No Content\r\nContent-Length: 5\r\n\r\n"), uint8(64), true)
	f.Add([]byte("HTTP/1.1 200 OK\r\n\r\nbody until close"), uint8(1), false)
	f.Fuzz(func(t *testing.T, stream []byte, chunk uint8, headOnly bool) {
		p := respParser{headOnly: headOnly}
		step := int(chunk%64) + 1
		var buf []byte
		for off := 0; off < len(stream); off += step {
			buf = append(buf, stream[off:min(off+step, len(stream))]...)
			for len(buf) > 0 {
				n, done, err := p.parse(buf)
				if n < 0 || n > len(buf) {
					t.Fatalf("parse took %d of %d bytes", n, len(buf))
				}
				buf = buf[n:]
				if err != nil {
					return
				}
				if !done && n == 0 {
					break
				}
			}
		}
	})
}
