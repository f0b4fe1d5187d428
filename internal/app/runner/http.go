package runner

import (
	"context"
	"fmt"
	"net"

	"github.com/crankshaft/crankshaft/internal/app/httpserver"
)

// ServeHTTP returns an App.Serve that runs the raw HTTP/1.1 server with newHandler, the env's
// pool and metrics.
func ServeHTTP(newHandler func() httpserver.Handler) func(context.Context, net.Listener, *Env) error {
	return func(ctx context.Context, ln net.Listener, env *Env) error {
		srv, err := httpserver.New(httpserver.Config{
			NewHandler: newHandler, Pool: env.Pool, Observer: env.Metrics, Logger: env.Logger,
		})
		if err != nil {
			return fmt.Errorf("http server: %w", err)
		}
		env.Ready()
		return srv.Serve(ctx, ln)
	}
}
