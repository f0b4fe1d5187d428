//go:build measure

package main

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/app/apptest"
	"github.com/crankshaft/crankshaft/internal/app/metrics"
)

// modeRun is one app run under the contention load.
type modeRun struct {
	mode      string
	mutexWait float64
	load      apptest.LoadResult
}

// TestSharedQueueContendsMore runs the same bounded pipelined load against --dispatch shared and
// --dispatch partitioned, side by side, and checks that the single shared queue's lock shows
// more go_sync_mutex_wait_total_seconds_total than the per-partition locks. Shared runs 64
// workers on its one queue, partitioned 16 partitions (as the e2e test of the scenario does: with
// 16 workers and 32-deep pipelines the two were too close to call on a busy machine), with GOMAXPROCS=8 (8 Ps on the 2-core box): with 2 Ps at most two goroutines touch a
// lock at once and the wait is mostly runtime-internal noise; 8 Ps bring the contention of a
// larger box. Three alternating rounds; the totals are compared.
func TestSharedQueueContendsMore(t *testing.T) {
	if testing.Short() {
		t.Skip("load test")
	}
	bin := apptest.Build(t, "github.com/crankshaft/crankshaft/apps/plaintext")
	args := map[string][]string{
		"shared":      {"--dispatch", "shared", "--workers", "64"},
		"partitioned": {"--dispatch", "partitioned", "--partitions", "16"},
	}
	totals := map[string]float64{}
	var report strings.Builder
	for round := range 3 {
		for _, mode := range []string{"shared", "partitioned"} {
			r := runMode(t, bin, mode, args[mode])
			totals[mode] += r.mutexWait
			fmt.Fprintf(&report, "round %d %-11s rps %9.0f requests %8d mutex wait %.3fs (%.1f ms/s)\n",
				round, mode, r.load.RPS(), r.load.Requests, r.mutexWait, 1000*r.mutexWait/r.load.Elapsed.Seconds())
		}
	}
	t.Logf("contention under 64 connections x 128 pipelined:\n%s", report.String())
	if totals["shared"] <= totals["partitioned"] {
		t.Errorf("mutex wait: shared %.3fs <= partitioned %.3fs", totals["shared"], totals["partitioned"])
	}
}

func runMode(t *testing.T, bin, mode string, args []string) modeRun {
	p := apptest.StartEnv(t, []string{"GOMAXPROCS=8"}, bin, args...)
	defer p.Stop(t)
	load := apptest.Load{Addr: p.Addr, Path: "/plaintext", Conns: 64, Depth: 128,
		Duration: 300 * time.Millisecond, MaxRounds: 1 << 20}
	if _, err := load.Run(t.Context()); err != nil { // warm-up, not measured
		t.Fatalf("%s: warm-up: %v", mode, err)
	}
	before := mutexWait(t, p.MetricsAddr)
	load.Duration = 1200 * time.Millisecond
	res, err := load.Run(t.Context())
	if err != nil {
		t.Fatalf("%s: %v", mode, err)
	}
	if res.Requests == 0 {
		t.Fatalf("%s: no request answered", mode)
	}
	return modeRun{mode: mode, mutexWait: mutexWait(t, p.MetricsAddr) - before, load: res}
}

func mutexWait(t *testing.T, addr string) float64 {
	v, ok := apptest.Value(apptest.Scrape(t, addr), metrics.MutexWaitSeconds, nil)
	if !ok {
		t.Fatalf("%s not exported", metrics.MutexWaitSeconds)
	}
	return v
}
