// Command json is the TechEmpower JSON serialization app: GET /json answers
// {"message":"Hello, World!"}, a new object per request serialized by encoding/json.
package main

import (
	"bytes"
	"encoding/json"
	"os"

	"github.com/crankshaft/crankshaft/internal/app/httpserver"
	"github.com/crankshaft/crankshaft/internal/app/runner"
)

type message struct {
	Message string `json:"message"`
}

// handler keeps an encoder over a reused buffer; the server gives each request slot its own.
type handler struct {
	buf bytes.Buffer
	enc *json.Encoder
}

func newHandler() httpserver.Handler {
	h := &handler{}
	h.enc = json.NewEncoder(&h.buf)
	return h
}

func (h *handler) ServeRaw(w *httpserver.Response, r *httpserver.Request) {
	switch {
	case string(r.Path) != "/json":
		w.WriteString(404, "text/plain", "")
	case !r.IsGetOrHead():
		w.WriteString(405, "text/plain", "")
	default:
		h.buf.Reset()
		if err := h.enc.Encode(&message{Message: "Hello, World!"}); err != nil {
			panic(err) // cannot happen for this type; the server answers 500 and counts it
		}
		w.Write(200, "application/json", bytes.TrimSuffix(h.buf.Bytes(), []byte("\n")))
	}
}

func main() {
	os.Exit(runner.Main(runner.App{Name: "json", Dispatch: true, EventLoops: true, Serve: runner.ServeHTTPEventLoops(newHandler)}))
}
