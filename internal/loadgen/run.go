// Package loadgen is the built-in HTTP/1.1 load generator (`crank load`). It drives raw TCP
// connections with a hand-written, allocation-free response parser, records latencies in HDR
// histograms, and reports wrk-compatible measurements. docs/LOADGEN.md describes its design,
// its rate mode and its measured cost per request.
package loadgen

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"time"
)

// readBufferSize is each connection's read buffer. It must exceed maxHeadBytes + minFree.
const readBufferSize = 32 << 10

// Run generates load as o says and returns the report of the measured window. It returns an
// error for invalid options; a run whose requests all failed still returns a report (with the
// errors counted). When ctx ends early, Run stops at once and returns the partial report with
// ctx's error.
func Run(ctx context.Context, o Options) (*Report, error) {
	o = o.withDefaults()
	if err := o.Validate(); err != nil {
		return nil, fmt.Errorf("load options: %w", err)
	}
	t, _ := parseTarget(o.URL) // checked by Validate
	if o.Threads > 0 {
		prev := runtime.GOMAXPROCS(o.Threads)
		defer runtime.GOMAXPROCS(prev)
	}
	req := buildRequest(o, t)
	cfg := &runConfig{
		addr: t.addr, batch: repeatRequest(req, o.Pipeline), reqLen: len(req), depth: o.Pipeline,
		timeout: int64(o.Timeout), conns: int64(o.Connections), rate: int64(o.Rate),
		headOnly: o.Method == "HEAD", bufSize: readBufferSize,
		measureFrom: int64(o.Warmup), end: int64(o.Warmup + o.Duration),
	}
	cfg.sendUntil = cfg.end
	if cfg.rate > 0 {
		cfg.sendUntil += lateGrace
	}
	shards := newShards(runtime.GOMAXPROCS(0))
	workers := make([]*worker, o.Connections)
	for i := range workers {
		workers[i] = newWorker(cfg, i, shards[i%len(shards)])
	}
	cfg.base = time.Now()
	var wg sync.WaitGroup
	for _, w := range workers {
		stop := context.AfterFunc(ctx, w.abort)
		wg.Go(func() {
			defer stop()
			w.run(ctx)
		})
	}
	wg.Wait()
	rep := newReport(o, cfg, workers, shards, ctx.Err() != nil)
	if err := ctx.Err(); err != nil {
		return rep, fmt.Errorf("load run interrupted: %w", err)
	}
	return rep, nil
}
