// Command grpc serves grpc.testing.BenchmarkService (the service of gRPC's benchmark clients
// and ghz) over HTTP/2 cleartext: UnaryCall answers a payload of the requested size and the
// streaming calls answer per message. The .proto files for ghz are in proto/.
package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"time"

	"google.golang.org/grpc"
	testpb "google.golang.org/grpc/interop/grpc_testing"

	"github.com/crankshaft/crankshaft/internal/app/runner"
)

const stopTimeout = 5 * time.Second

func main() {
	os.Exit(runner.Main(runner.App{Name: "grpc", Serve: serve}))
}

func serve(ctx context.Context, ln net.Listener, env *runner.Env) error {
	obs := &observer{metrics: env.Metrics, log: env.Logger}
	srv := grpc.NewServer(
		grpc.ChainUnaryInterceptor(obs.unary),
		grpc.ChainStreamInterceptor(obs.stream),
		// A call to a method the server does not have goes through the stream interceptor too, so
		// it is counted failed (Unimplemented) rather than answered by grpc-go unseen.
		grpc.UnknownServiceHandler(unknownMethod),
	)
	testpb.RegisterBenchmarkServiceServer(srv, newService(obs))
	stop := context.AfterFunc(ctx, func() { gracefulStop(srv) })
	defer stop()
	env.Ready()
	if err := srv.Serve(ln); err != nil && !errors.Is(err, grpc.ErrServerStopped) {
		return fmt.Errorf("grpc serve: %w", err)
	}
	return nil
}

// gracefulStop lets running calls finish for a while, then closes everything.
func gracefulStop(srv *grpc.Server) {
	done := make(chan struct{})
	go func() {
		srv.GracefulStop()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(stopTimeout):
		srv.Stop()
	}
}
