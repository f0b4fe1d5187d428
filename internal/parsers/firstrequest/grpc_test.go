package firstrequest_test

import (
	"context"
	"encoding/base64"
	"net"
	"net/http"
	"testing"

	"google.golang.org/grpc"
	testpb "google.golang.org/grpc/interop/grpc_testing"

	"github.com/crankshaft/crankshaft/internal/parsers/firstrequest"
	"github.com/crankshaft/crankshaft/internal/parsers/h2load"
)

// TestFirstRequestIsTheToolsRequest: h2load's first request is sent as h2load sends its load
// (its headers, a POST of its body file), so a real gRPC server answers it as it answers the
// load. A bare GET, what the first request was before, is answered 415: the "first request was
// answered 415" warning beside 0 bad responses (issue 48, 2).
func TestFirstRequestIsTheToolsRequest(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer()
	testpb.RegisterBenchmarkServiceServer(srv, testpb.UnimplementedBenchmarkServiceServer{})
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(srv.Stop)
	url := "http://" + ln.Addr().String() + "/grpc.testing.BenchmarkService/UnaryCall"

	args := []string{url, "-H", "content-type: application/grpc", "--header=TE: trailers", "-c", "1", "-d", "crank-h2load-body.bin", "-D", "5"}
	target, err := h2load.Parser{}.FirstRequest(args)
	if err != nil {
		t.Fatal(err)
	}
	if target.BodyFile != "crank-h2load-body.bin" || len(target.Header) != 2 || !target.HTTP2 {
		t.Fatalf("target %+v: want h2load's two headers and its body file, over HTTP/2", target)
	}
	if target.Body, err = base64.StdEncoding.DecodeString("AAAAAAcKBVdvcmxk"); err != nil {
		t.Fatal(err)
	}
	res, err := firstrequest.Measure(context.Background(), target)
	if err != nil || res.Status != http.StatusOK {
		t.Errorf("h2load's request: %+v, %v; want 200 (the gRPC status is in the trailers)", res, err)
	}

	bare := target
	bare.Header, bare.BodyFile, bare.Body = nil, "", nil
	if res, err := firstrequest.Measure(context.Background(), bare); err != nil || res.Status != http.StatusUnsupportedMediaType {
		t.Errorf("a bare GET: %+v, %v; want 415, as a gRPC server answers it", res, err)
	}
}
