package runner

import (
	"context"
	"fmt"
	"net"

	"github.com/crankshaft/crankshaft/internal/app/httpserver"
)

// ServeHTTP returns an App.Serve that runs the raw HTTP/1.1 server with newHandler, the env's
// pool and metrics, a goroutine per connection.
func ServeHTTP(newHandler func() httpserver.Handler) func(context.Context, net.Listener, *Env) error {
	return serveHTTP(httpserver.Config{NewHandler: newHandler})
}

// ServeHTTPEventLoops is ServeHTTP for handlers that never block (no I/O, no waiting): with
// --dispatch inline on Linux, event loops serve the connections on the I/O of --io
// (httpserver.Config.EventLoops and IO).
func ServeHTTPEventLoops(newHandler func() httpserver.Handler) func(context.Context, net.Listener, *Env) error {
	return serveHTTP(httpserver.Config{NewHandler: newHandler, EventLoops: true})
}

func serveHTTP(cfg httpserver.Config) func(context.Context, net.Listener, *Env) error {
	return func(ctx context.Context, ln net.Listener, env *Env) error {
		cfg.Pool, cfg.Observer, cfg.Logger, cfg.IO = env.Pool, env.Metrics, env.Logger, env.IO
		srv, err := httpserver.New(cfg)
		if err != nil {
			return fmt.Errorf("http server: %w", err)
		}
		env.Ready()
		return srv.Serve(ctx, ln)
	}
}
