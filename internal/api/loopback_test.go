package api

import (
	"context"
	"fmt"
	"net"
	"runtime"
	"testing"

	"github.com/crankshaft/crankshaft/internal/testutil"
)

type fixedAddrs []net.IPAddr

func (f fixedAddrs) LookupIPAddr(context.Context, string) ([]net.IPAddr, error) { return f, nil }

// TestLoopbackAddrOneSocket: a name resolving to ::1 and 127.0.0.1 where one dual-stack socket
// listens on both is pinned to the first (one program: nothing to refuse); a name resolving to one
// address, and an IP, are dialled as usual.
func TestLoopbackAddrOneSocket(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("listening sockets are read from /proc/net")
	}
	ln, err := net.Listen("tcp", "[::]:0")
	if err != nil {
		testutil.Missing(t, "no dual-stack wildcard: %v", err)
	}
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	both := fixedAddrs{{IP: net.IPv6loopback}, {IP: net.IPv4(127, 0, 0, 1)}}
	url := fmt.Sprintf("http://localhost:%d", port)
	got, err := LoopbackAddr(t.Context(), url, both)
	if want := fmt.Sprintf("[::1]:%d", port); err != nil || got != want {
		t.Errorf("LoopbackAddr(%s) = %q, %v; want %q", url, got, err, want)
	}
	if got, err := LoopbackAddr(t.Context(), url, both[1:]); err != nil || got != "" {
		t.Errorf("one address: LoopbackAddr = %q, %v; want \"\"", got, err)
	}
	ip := fmt.Sprintf("http://127.0.0.1:%d", port)
	if got, err := LoopbackAddr(t.Context(), ip, both); err != nil || got != "" {
		t.Errorf("LoopbackAddr(%s) = %q, %v; want \"\"", ip, got, err)
	}
	remote := fixedAddrs{{IP: net.IPv6loopback}, {IP: net.IPv4(10, 0, 0, 2)}}
	if got, err := LoopbackAddr(t.Context(), url, remote); err != nil || got != "" {
		t.Errorf("a name resolving beyond loopback: LoopbackAddr = %q, %v; want \"\"", got, err)
	}
}
