package agent

import (
	"net"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/reqsign"
)

// TestSlowlorisFromOneHostCannotStarveAnother: a host that opens more connections than the agent
// holds and trickles a header byte at a time (never finishing, never sending a token) cannot keep
// another host's /health and authenticated call out. The third audit's attack on a real agent
// (1,000 such connections from loopback) kept a new /health waiting over 20 s and GET /jobs 12 s,
// past the controller's AgentSilence (issue 25, third audit, 1).
func TestSlowlorisFromOneHostCannotStarveAnother(t *testing.T) {
	const token = "slowloris-test-token"
	addr := serveLoopback(t, Options{Token: token, MaxConnections: 16, MaxConnectionsPerHost: 4, HeaderTimeout: 10 * time.Second})
	attackDone := make(chan struct{})
	var wg, connected sync.WaitGroup
	defer func() { close(attackDone); wg.Wait() }()
	const attackers = 40 // from 127.0.0.1: more than the agent's 16 connections
	connected.Add(attackers)
	for range attackers {
		wg.Go(func() {
			first := sync.OnceFunc(connected.Done)
			defer first()
			for range 20 { // bounded: reconnects when the agent closes it
				c, err := net.DialTimeout("tcp", addr, time.Second)
				if err != nil {
					return
				}
				_, _ = c.Write([]byte("GET /jobs HTTP/1.1\r\nHost: x\r\n"))
				first() // queued before the probe's connection
				tick := time.NewTicker(100 * time.Millisecond)
				for open := true; open; {
					select {
					case <-attackDone:
						tick.Stop()
						c.Close()
						return
					case <-tick.C:
						_ = c.SetWriteDeadline(time.Now().Add(time.Second))
						_, err := c.Write([]byte("X"))
						open = err == nil
					}
				}
				tick.Stop()
				c.Close()
			}
		})
	}
	connected.Wait()

	// The controller, from another address (127.0.0.2, still loopback).
	dialer := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 2)}, Timeout: 5 * time.Second}
	client := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{DialContext: dialer.DialContext, DisableKeepAlives: true}}
	for _, path := range []string{"/health", "/jobs"} {
		req, _ := http.NewRequest(http.MethodGet, "http://"+addr+path, nil)
		reqsign.Sign(req, token, time.Now(), nil)
		start := time.Now()
		resp, err := client.Do(req)
		took := time.Since(start)
		if err != nil {
			t.Fatalf("GET %s from another host during the slowloris: %v after %v, want an answer within 2 s", path, err, took.Round(time.Millisecond))
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || took > 2*time.Second {
			t.Errorf("GET %s from another host during the slowloris: %d after %v, want 200 within 2 s", path, resp.StatusCode, took.Round(time.Millisecond))
		}
	}
}
