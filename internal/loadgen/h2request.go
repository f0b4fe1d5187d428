package loadgen

import (
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"

	"golang.org/x/net/http2/hpack"
	testpb "google.golang.org/grpc/interop/grpc_testing"
	"google.golang.org/protobuf/proto"
)

// gRPC methods of grpc.testing.BenchmarkService the generator calls when the URL names none.
const (
	unaryPath     = "/grpc.testing.BenchmarkService/UnaryCall"
	streamingPath = "/grpc.testing.BenchmarkService/StreamingCall"
	// maxGRPCPayload bounds the payload sizes: gRPC's default message limit is 4 MiB.
	maxGRPCPayload = 4<<20 - 1<<10
	// grpcPrefix is the length of a gRPC message's prefix: a compressed flag, then the length.
	grpcPrefix = 5
)

// h2Request is what every HTTP/2 request (or gRPC call) of a run sends: its header fields, and
// the DATA bytes (for gRPC, one length-prefixed message).
type h2Request struct {
	fields    []hpack.HeaderField
	body      []byte
	grpc      bool
	streaming bool // gRPC: one message per request on long-lived streams
}

// connectionHeaders are HTTP/1.1 headers HTTP/2 forbids (RFC 9113 8.2.2); requests leave them out.
var connectionHeaders = map[string]bool{
	"connection": true, "keep-alive": true, "proxy-connection": true,
	"transfer-encoding": true, "upgrade": true,
}

// buildH2Request returns the request o describes for HTTP/2 or gRPC.
func buildH2Request(o Options, t target) (*h2Request, error) {
	scheme := "http"
	if t.tls {
		scheme = "https"
	}
	r := &h2Request{grpc: o.Protocol == ProtocolGRPC, streaming: o.Call == CallStreaming}
	method, path := o.Method, t.requestURI
	if r.grpc {
		method = "POST"
		if path == "/" {
			path = unaryPath
			if r.streaming {
				path = streamingPath
			}
		}
		msg, err := proto.Marshal(&testpb.SimpleRequest{
			ResponseSize: int32(o.ResponseSize),
			Payload:      &testpb.Payload{Body: make([]byte, o.RequestSize)},
		})
		if err != nil {
			return nil, fmt.Errorf("grpc request: %w", err)
		}
		r.body = binary.BigEndian.AppendUint32([]byte{0}, uint32(len(msg)))
		r.body = append(r.body, msg...)
	} else {
		r.body = o.Body
	}
	authority := t.host
	var extra []hpack.HeaderField
	hasLength := false
	for _, h := range o.Headers {
		name, value, _ := strings.Cut(h, ":")
		name = strings.ToLower(strings.TrimSpace(name))
		switch {
		case name == "host":
			authority = strings.TrimSpace(value)
		case connectionHeaders[name]:
		default:
			hasLength = hasLength || name == "content-length"
			extra = append(extra, hpack.HeaderField{Name: name, Value: strings.TrimSpace(value)})
		}
	}
	r.fields = []hpack.HeaderField{
		{Name: ":method", Value: method}, {Name: ":scheme", Value: scheme},
		{Name: ":authority", Value: authority}, {Name: ":path", Value: path},
	}
	if r.grpc {
		r.fields = append(r.fields, hpack.HeaderField{Name: "content-type", Value: "application/grpc"},
			hpack.HeaderField{Name: "te", Value: "trailers"})
	} else if !hasLength && len(r.body) > 0 {
		r.fields = append(r.fields, hpack.HeaderField{Name: "content-length", Value: strconv.Itoa(len(r.body))})
	}
	r.fields = append(r.fields, extra...)
	return r, nil
}

// grpcMessages follows the length-prefixed messages of a gRPC response across DATA frames.
type grpcMessages struct {
	prefix [grpcPrefix]byte
	have   int // prefix bytes read of the current message
	left   int // body bytes of the current message still to come, once the prefix is whole
}

// feed consumes p and returns how many messages it completed.
func (m *grpcMessages) feed(p []byte) int {
	done := 0
	for len(p) > 0 {
		if m.have < grpcPrefix {
			n := copy(m.prefix[m.have:], p)
			m.have += n
			p = p[n:]
			if m.have < grpcPrefix {
				break
			}
			m.left = int(binary.BigEndian.Uint32(m.prefix[1:]))
		}
		n := min(m.left, len(p))
		m.left -= n
		p = p[n:]
		if m.left == 0 {
			m.have = 0
			done++
		}
	}
	return done
}

func (m *grpcMessages) reset() { m.have, m.left = 0, 0 }
