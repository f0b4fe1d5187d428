package loadgen

import (
	"context"
	"errors"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	testpb "google.golang.org/grpc/interop/grpc_testing"
	"google.golang.org/grpc/status"
)

// h2Counter is an HTTP handler that counts the requests it answers, by protocol version.
type h2Counter struct {
	h1, h2  atomic.Int64
	respond func(w http.ResponseWriter, r *http.Request)
}

func (c *h2Counter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if c.respond != nil {
		c.respond(w, r)
	} else {
		io.WriteString(w, "Hello, World!")
	}
	if r.ProtoMajor == 2 {
		c.h2.Add(1)
	} else {
		c.h1.Add(1)
	}
}

// startH2C serves h on 127.0.0.1:0 over cleartext HTTP/2 with prior knowledge (and HTTP/1.1).
func startH2C(t *testing.T, h http.Handler) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h, Protocols: new(http.Protocols)}
	srv.Protocols.SetHTTP1(true)
	srv.Protocols.SetUnencryptedHTTP2(true)
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("h2c server: %v", err)
		}
	}()
	t.Cleanup(func() {
		srv.Close()
		<-done
	})
	return "http://" + ln.Addr().String() + "/"
}

// startTLS serves h over TLS with a self-signed certificate, offering h2 by ALPN when h2 is set.
func startTLS(t *testing.T, h http.Handler, h2 bool) string {
	t.Helper()
	s := httptest.NewUnstartedServer(h)
	s.EnableHTTP2 = h2
	s.Config.ErrorLog = log.New(io.Discard, "", 0) // the handshakes tests make fail on purpose
	s.StartTLS()
	t.Cleanup(s.Close)
	return s.URL + "/"
}

// benchService is a grpc.testing.BenchmarkService that counts the calls (unary) and messages
// (streaming) it answers, and fails every failEvery-th unary call with Unavailable.
type benchService struct {
	testpb.UnimplementedBenchmarkServiceServer
	unary, messages, failed atomic.Int64
	failEvery               int64
}

func (s *benchService) UnaryCall(_ context.Context, req *testpb.SimpleRequest) (*testpb.SimpleResponse, error) {
	n := s.unary.Add(1)
	if s.failEvery > 0 && n%s.failEvery == 0 {
		s.failed.Add(1)
		return nil, status.Error(codes.Unavailable, "every so often")
	}
	return &testpb.SimpleResponse{Payload: &testpb.Payload{Body: make([]byte, req.GetResponseSize())}}, nil
}

func (s *benchService) StreamingCall(stream grpc.BidiStreamingServer[testpb.SimpleRequest, testpb.SimpleResponse]) error {
	for {
		req, err := stream.Recv()
		if err != nil {
			return nil
		}
		s.messages.Add(1)
		if err := stream.Send(&testpb.SimpleResponse{Payload: &testpb.Payload{Body: make([]byte, req.GetResponseSize())}}); err != nil {
			return err
		}
	}
}

// startGRPC serves svc over h2c on 127.0.0.1:0.
func startGRPC(t *testing.T, svc *benchService) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer()
	testpb.RegisterBenchmarkServiceServer(srv, svc)
	done := make(chan struct{})
	go func() {
		defer close(done)
		srv.Serve(ln)
	}()
	t.Cleanup(func() {
		srv.Stop()
		<-done
	})
	return "http://" + ln.Addr().String()
}
