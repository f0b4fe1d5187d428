package controller

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/crankshaft/crankshaft/internal/testutil"
)

// bothLoopbacks resolves every name to ::1 then 127.0.0.1, as Go's resolver does "localhost"
// with Debian's /etc/hosts ("127.0.0.1 localhost" and "::1 localhost").
type bothLoopbacks struct{}

func (bothLoopbacks) LookupIPAddr(context.Context, string) ([]net.IPAddr, error) {
	return []net.IPAddr{{IP: net.IPv6loopback}, {IP: net.IPv4(127, 0, 0, 1)}}, nil
}

// TestLoopbackNameNotSentToAnotherListener: crank given the agent's token (so no token file pins
// the address) and the agent as http://localhost:P, with the agent on 127.0.0.1:P (crank-agent's
// default address) and another local user's listener on [::1]:P, sent every request to [::1]:P
// (the resolver's first answer): the job descriptions, and the answers it printed were the
// listener's. crank must not dial [::1]:P: with two programs listening it refuses, naming both;
// with the agent alone it pins 127.0.0.1:P, also for a listener that comes later.
func TestLoopbackNameNotSentToAnotherListener(t *testing.T) {
	const token = "loopback-pin-token"
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	serveAgent(t, ln, token)
	thiefAddr := fmt.Sprintf("[::1]:%d", port)
	listenThief := func() net.Listener {
		thief, err := net.Listen("tcp", thiefAddr)
		if err != nil {
			testutil.Missing(t, "no IPv6 loopback to listen on: %v", err) // the attack needs it
		}
		go func() {
			for {
				c, err := thief.Accept()
				if err != nil {
					return
				}
				c.Close()
			}
		}()
		return thief
	}
	var mu sync.Mutex
	var dialled []string
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		if addr == fmt.Sprintf("localhost:%d", port) { // the name resolved again: ::1 first
			addr = thiefAddr
		}
		mu.Lock()
		dialled = append(dialled, addr)
		mu.Unlock()
		return (&net.Dialer{}).DialContext(ctx, network, addr)
	}
	url := fmt.Sprintf("http://localhost:%d", port)
	newController := func() *Controller {
		return New(Options{AgentToken: token, HTTPClient: &http.Client{Transport: tr}, Resolver: bothLoopbacks{}})
	}
	thiefDialled := func() bool {
		mu.Lock()
		defer mu.Unlock()
		return slices.Contains(dialled, thiefAddr)
	}

	thief := listenThief()
	_, err = newController().client(t.Context(), url, "")
	if err == nil || !strings.Contains(err.Error(), "different programs listen") ||
		!strings.Contains(err.Error(), thiefAddr) || !strings.Contains(err.Error(), fmt.Sprintf("127.0.0.1:%d (uid %d)", port, os.Getuid())) {
		t.Errorf("with listeners on both loopbacks: err = %v, want the two addresses and their owners named", err)
	}
	if thiefDialled() {
		t.Errorf("crank dialled %s (another user's listener)", thiefAddr)
	}
	thief.Close()

	ag, err := newController().client(t.Context(), url, "")
	if err != nil {
		t.Fatalf("the agent alone on 127.0.0.1:%d: %v", port, err)
	}
	thief = listenThief()
	defer thief.Close()
	if _, err := ag.client.Info(t.Context()); err != nil {
		t.Errorf("after another listener came on %s: %v", thiefAddr, err)
	}
	if thiefDialled() {
		t.Errorf("crank dialled %s (another user's listener), want only 127.0.0.1:%d", thiefAddr, port)
	}
}
