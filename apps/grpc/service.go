package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"unicode"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	testpb "google.golang.org/grpc/interop/grpc_testing"
	"google.golang.org/grpc/status"

	"github.com/crankshaft/crankshaft/internal/app/metrics"
)

// maxResponseSize bounds a requested payload (gRPC's default message limit is 4 MiB).
const maxResponseSize = 4 << 20

// service implements grpc.testing.BenchmarkService. Payload bodies are slices of one zeroed
// buffer, shared read-only by every response.
type service struct {
	testpb.UnimplementedBenchmarkServiceServer
	zeros []byte
	obs   *observer
}

func newService(obs *observer) *service {
	return &service{zeros: make([]byte, maxResponseSize), obs: obs}
}

// response builds the answer to req.
func (s *service) response(req *testpb.SimpleRequest) (*testpb.SimpleResponse, error) {
	n := req.GetResponseSize()
	if n < 0 || n > maxResponseSize {
		return nil, status.Errorf(codes.InvalidArgument, "response_size %d not in [0, %d]", n, maxResponseSize)
	}
	if st := req.GetResponseStatus(); st != nil && st.GetCode() != 0 {
		return nil, status.Error(codes.Code(st.GetCode()), st.GetMessage())
	}
	return &testpb.SimpleResponse{Payload: &testpb.Payload{Type: req.GetResponseType(), Body: s.zeros[:n]}}, nil
}

// UnaryCall answers one request.
func (s *service) UnaryCall(_ context.Context, req *testpb.SimpleRequest) (*testpb.SimpleResponse, error) {
	return s.response(req)
}

// StreamingCall answers each request on the stream (ping-pong).
func (s *service) StreamingCall(stream grpc.BidiStreamingServer[testpb.SimpleRequest, testpb.SimpleResponse]) error {
	return s.echo(stream)
}

// StreamingBothWays answers each request on the stream as it arrives.
func (s *service) StreamingBothWays(stream grpc.BidiStreamingServer[testpb.SimpleRequest, testpb.SimpleResponse]) error {
	return s.echo(stream)
}

func (s *service) echo(stream grpc.BidiStreamingServer[testpb.SimpleRequest, testpb.SimpleResponse]) error {
	for {
		req, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		s.obs.metrics.AddRequests(1)
		resp, err := s.response(req)
		if err != nil {
			return err
		}
		if err := stream.Send(resp); err != nil {
			return err
		}
	}
}

// StreamingFromClient reads every request and answers the last one.
func (s *service) StreamingFromClient(stream grpc.ClientStreamingServer[testpb.SimpleRequest, testpb.SimpleResponse]) error {
	last := &testpb.SimpleRequest{}
	for {
		req, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			resp, err := s.response(last)
			if err != nil {
				return err
			}
			return stream.SendAndClose(resp)
		}
		if err != nil {
			return err
		}
		s.obs.metrics.AddRequests(1)
		last = req
	}
}

// StreamingFromServer sends responses to req until the client cancels.
func (s *service) StreamingFromServer(req *testpb.SimpleRequest, stream grpc.ServerStreamingServer[testpb.SimpleResponse]) error {
	resp, err := s.response(req)
	if err != nil {
		return err
	}
	for stream.Context().Err() == nil {
		if err := stream.Send(resp); err != nil {
			return err
		}
		s.obs.metrics.AddRequests(1)
	}
	return nil
}

// unknownMethod answers a call to a method the server does not have: Unimplemented, as grpc-go
// does without a handler.
func unknownMethod(_ any, stream grpc.ServerStream) error {
	method, _ := grpc.MethodFromServerStream(stream)
	return status.Errorf(codes.Unimplemented, "unknown method %s", method)
}

// observer counts calls and failures, and turns handler panics into Internal errors.
type observer struct {
	metrics *metrics.Metrics
	log     *slog.Logger
}

func (o *observer) unary(ctx context.Context, req any, info *grpc.UnaryServerInfo, h grpc.UnaryHandler) (resp any, err error) {
	defer o.recover(info.FullMethod, &err)
	o.metrics.AddRequests(1)
	resp, err = h(ctx, req)
	o.failed(err)
	return resp, err
}

func (o *observer) stream(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, h grpc.StreamHandler) (err error) {
	defer o.recover(info.FullMethod, &err)
	err = h(srv, ss)
	o.failed(err)
	return err
}

// failed counts a call that ended with a gRPC status other than OK: InvalidArgument as a bad
// request, any other as its code ("grpc_unimplemented" for a method the server does not have).
// Canceled is the client's doing (a stream it closed), not a failure of the server.
func (o *observer) failed(err error) {
	switch code := status.Code(err); code {
	case codes.OK, codes.Canceled:
	case codes.InvalidArgument:
		o.metrics.Exception(metrics.KindBadRequest)
	default:
		o.metrics.Exception(kindOf(code))
	}
}

// kindOf is the exception kind of a gRPC status code: "grpc_" and its name in snake case.
func kindOf(c codes.Code) string {
	var b strings.Builder
	b.WriteString("grpc")
	for _, r := range c.String() {
		if unicode.IsUpper(r) {
			b.WriteByte('_')
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

func (o *observer) recover(method string, err *error) {
	if p := recover(); p != nil {
		o.metrics.Exception(metrics.KindPanic)
		o.log.Error("handler panic", slog.String("method", method), slog.Any("panic", p))
		*err = status.Error(codes.Internal, fmt.Sprint("panic: ", p))
	}
}
