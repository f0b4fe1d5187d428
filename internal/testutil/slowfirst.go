package testutil

import (
	"context"
	"errors"
	"net"
	"net/http"
	"sync/atomic"
	"testing"
	"time"
)

// ServeSlowFirst serves "hello" on 127.0.0.1:0 over HTTP/1.1 and h2c until the test ends, its
// first response held back by delay and every later one at once: a server whose first request
// has a known cost. It returns the address and a counter of the requests answered.
func ServeSlowFirst(t testing.TB, delay time.Duration) (string, *atomic.Int64) {
	t.Helper()
	var n atomic.Int64
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 1 {
			select {
			case <-time.After(delay):
			case <-r.Context().Done():
				return
			}
		}
		w.Header().Set("Content-Type", "text/plain")
		_, _ = w.Write([]byte("hello"))
	})
	addr := ServeLoopback(t, func(ctx context.Context, ln net.Listener) error {
		srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, Protocols: new(http.Protocols)}
		srv.Protocols.SetHTTP1(true)
		srv.Protocols.SetUnencryptedHTTP2(true)
		go func() {
			<-ctx.Done()
			_ = srv.Close()
		}()
		if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			return err
		}
		return nil
	})
	return addr, &n
}
