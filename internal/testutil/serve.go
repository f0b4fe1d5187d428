package testutil

import (
	"context"
	"net"
	"testing"
	"time"
)

// ServeLoopback runs serve on a new listener on 127.0.0.1:0 until the test ends, and returns
// the listener's address. At the end the context is cancelled and serve must return nil within
// 5 s.
func ServeLoopback(t testing.TB, serve func(ctx context.Context, ln net.Listener) error) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-served:
			if err != nil {
				t.Errorf("serve: %v", err)
			}
		case <-time.After(5 * time.Second):
			t.Errorf("serve did not return within 5 s of its context's end")
		}
	})
	return ln.Addr().String()
}
