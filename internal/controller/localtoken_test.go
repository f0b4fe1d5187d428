package controller

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"

	"github.com/crankshaft/crankshaft/internal/agent"
	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/testutil"
)

// TestLocalTokenGoesToItsOwnAddress: HIGH 2. crank read the token file of the agent on
// 127.0.0.1:P, then its HTTP client resolved "localhost" again, got ::1 (a "::1 localhost" line in
// /etc/hosts), and sent the request with the token to another user's listener on [::1]:P. The
// test's dialer plays that resolver (it sends "localhost:P" to [::1]:P); crank must dial
// 127.0.0.1:P itself, where the token file came from, and never [::1]:P.
func TestLocalTokenGoesToItsOwnAddress(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	thief, err := net.Listen("tcp", fmt.Sprintf("[::1]:%d", port))
	if err != nil {
		testutil.Missing(t, "no IPv6 loopback to listen on: %v", err) // the attack needs it
	}
	defer thief.Close()
	go func() {
		for {
			c, err := thief.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()

	a := serveAgent(t, ln, "")
	if _, err := api.WriteTokenFile(ln.Addr(), a.Token()); err != nil {
		t.Fatal(err)
	}

	var mu sync.Mutex
	var dialled []string
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		if addr == fmt.Sprintf("localhost:%d", port) { // the name resolved again: ::1 first
			addr = fmt.Sprintf("[::1]:%d", port)
		}
		mu.Lock()
		dialled = append(dialled, addr)
		mu.Unlock()
		return (&net.Dialer{}).DialContext(ctx, network, addr)
	}
	c := New(Options{HTTPClient: &http.Client{Transport: tr}})
	url := fmt.Sprintf("http://localhost:%d", port)
	if _, err := c.client(t.Context(), url, ""); err != nil {
		t.Errorf("the local agent at %s with its token file: %v", url, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if slices.Contains(dialled, fmt.Sprintf("[::1]:%d", port)) || len(dialled) == 0 {
		t.Errorf("crank dialled %q, want only 127.0.0.1:%d (whose token file it read)", dialled, port)
	}
}

// serveAgent serves a real agent with token ("": one made up) on ln until the test ends.
func serveAgent(t *testing.T, ln net.Listener, token string) *agent.Agent {
	t.Helper()
	a, err := agent.New(agent.Options{Dir: t.TempDir(), Token: token, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(a.Handler())
	srv.Listener = ln
	srv.Start()
	t.Cleanup(func() {
		_ = a.Shutdown(context.Background())
		srv.Close()
	})
	return a
}
