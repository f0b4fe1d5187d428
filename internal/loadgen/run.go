// Package loadgen is the built-in load generator (`crank load`): HTTP/1.1 (cleartext or TLS),
// HTTP/2 (h2c with prior knowledge, or h2 over TLS) and gRPC calls to grpc.testing.BenchmarkService.
// HTTP/1.1 drives raw TCP connections with a hand-written, allocation-free response parser;
// HTTP/2 uses golang.org/x/net/http2's Framer and HPACK. Latencies go to HDR histograms, and the
// report has wrk-compatible measurements and a per-second timeline. docs/LOADGEN.md describes its
// design, its rate mode and its measured cost per request.
package loadgen

import (
	"context"
	"crypto/tls"
	"fmt"
	"runtime"
	"sync"
	"time"
)

// readBufferSize is each connection's read buffer. It must exceed maxHeadBytes + minFree.
const readBufferSize = 32 << 10

// client drives one connection of a run, in one protocol: worker (HTTP/1.1) or h2client (HTTP/2
// and gRPC).
type client interface {
	// run generates load until the end of the window, then drains the requests in flight.
	run(ctx context.Context)
	// abort makes run return at once; it is called from another goroutine.
	abort()
	// tally is the client's counters, read once run has returned.
	tally() *counters
	// stoppedAt is when run returned (nanoseconds since the run's base).
	stoppedAt() int64
}

// Run generates load as o says and returns the report of the measured window. It returns an
// error for invalid options; a run whose requests all failed still returns a report (with the
// errors counted). When ctx ends early, Run stops at once and returns the partial report with
// ctx's error.
func Run(ctx context.Context, o Options) (*Report, error) {
	o = o.withDefaults()
	if err := o.Validate(); err != nil {
		return nil, fmt.Errorf("load options: %w", err)
	}
	t, err := parseTarget(o.URL) // checked by Validate
	if err != nil {
		return nil, err
	}
	if o.Threads > 0 {
		prev := runtime.GOMAXPROCS(o.Threads)
		defer runtime.GOMAXPROCS(prev)
	}
	cfg := newRunConfig(o, t)
	if cfg.io, cfg.ioFallback, err = chooseIO(o, t); err != nil {
		return nil, err
	}
	shards := newShards(runtime.GOMAXPROCS(0))
	var ll *latencyLog
	if o.LatencyLog != nil {
		ll = newLatencyLog(o.LatencyLog, shards)
	}
	clients := make([]client, o.Connections)
	if o.Protocol == ProtocolHTTP1 {
		for i := range clients {
			clients[i] = newWorker(cfg, i, shards[i%len(shards)])
		}
	} else {
		req, err := buildH2Request(o, t)
		if err != nil {
			return nil, err
		}
		for i := range clients {
			clients[i] = newH2Client(cfg, i, shards[i%len(shards)], req)
		}
	}
	base, err := waitForStart(ctx, o)
	if err != nil {
		return nil, err
	}
	cfg.base = base
	if cfg.io == IOUring {
		if err := runRings(ctx, cfg, clients); err != nil {
			return nil, err
		}
	} else {
		runClients(ctx, clients)
	}
	rep := newReport(o, cfg, clients, shards, ctx.Err() != nil)
	if err := ctx.Err(); err != nil {
		return rep, fmt.Errorf("load run interrupted: %w", err)
	}
	if ll != nil {
		return rep, ll.close()
	}
	return rep, nil
}

// runClients runs each client on its own goroutine until all have returned.
func runClients(ctx context.Context, clients []client) {
	var wg sync.WaitGroup
	for _, c := range clients {
		stop := context.AfterFunc(ctx, c.abort)
		wg.Go(func() {
			defer stop()
			c.run(ctx)
		})
	}
	wg.Wait()
}

// chooseIO picks the HTTP/1.1 connections' I/O (Options.IO): epoll when asked, and for TLS, h2
// and gRPC; else uring if the kernel allows it. auto falls back to epoll with the probe's reason
// (fallback); uring asked and refused is an error that says why.
func chooseIO(o Options, t target) (mode, fallback string, err error) {
	if o.IO == IOEpoll || o.Protocol != ProtocolHTTP1 || t.tls {
		return IOEpoll, "", nil
	}
	probe := o.probeIO
	if probe == nil {
		probe = probeRing
	}
	if err := probe(); err != nil {
		if o.IO == IOUring {
			return "", "", fmt.Errorf("--io uring: %w", err)
		}
		return IOEpoll, err.Error(), nil
	}
	return IOUring, "", nil
}

// newRunConfig is what the clients of a run share.
func newRunConfig(o Options, t target) *runConfig {
	req := buildRequest(o, t)
	cfg := &runConfig{
		addr: t.addr, batch: repeatRequest(req, o.Pipeline), reqLen: len(req), depth: o.Pipeline,
		streams: o.Streams, timeout: int64(o.Timeout), conns: int64(o.Connections), rate: int64(o.Rate),
		headOnly: o.Method == "HEAD", bufSize: readBufferSize,
		measureFrom: int64(o.Warmup), end: int64(o.Warmup + o.Duration),
	}
	if t.tls {
		alpn := []string{"http/1.1"}
		if o.Protocol != ProtocolHTTP1 {
			alpn = []string{"h2"}
		}
		cfg.tls = &tls.Config{ServerName: t.serverName, InsecureSkipVerify: o.Insecure, NextProtos: alpn}
	}
	cfg.sendUntil = cfg.end
	if o.Protocol != ProtocolHTTP1 {
		cfg.gate = &wakeGate{}
	}
	if cfg.rate > 0 {
		cfg.sendUntil += lateGrace
	}
	return cfg
}

// waitForStart waits until the run's start (Options.StartAt minus the warm-up) and returns the
// time it began: now when StartAt is unset or already past.
func waitForStart(ctx context.Context, o Options) (time.Time, error) {
	if o.StartAt.IsZero() {
		return time.Now(), nil
	}
	wait := time.Until(o.StartAt.Add(-o.Warmup))
	if wait <= 0 {
		return time.Now(), nil
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return time.Time{}, fmt.Errorf("waiting for the start at %s: %w", o.StartAt.Format(time.RFC3339Nano), ctx.Err())
	case <-t.C:
	}
	return time.Now(), nil
}
