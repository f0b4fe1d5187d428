// Command plaintext is the TechEmpower plaintext app: GET /plaintext (or /) answers
// "Hello, World!" as text/plain over the raw HTTP/1.1 server, with keep-alive and pipelining.
package main

import (
	"os"

	"github.com/crankshaft/crankshaft/internal/app/httpserver"
	"github.com/crankshaft/crankshaft/internal/app/runner"
)

const body = "Hello, World!"

func serve(w *httpserver.Response, r *httpserver.Request) {
	switch path := string(r.Path); {
	case path != "/plaintext" && path != "/":
		w.WriteString(404, "text/plain", "")
	case !r.IsGetOrHead():
		w.WriteString(405, "text/plain", "")
	default:
		w.WriteString(200, "text/plain", body)
	}
}

func main() {
	os.Exit(runner.Main(runner.App{
		Name:       "plaintext",
		Dispatch:   true,
		EventLoops: true,
		Serve: runner.ServeHTTPEventLoops(func() httpserver.Handler {
			return httpserver.HandlerFunc(serve)
		}),
	}))
}
