//go:build linux

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/app/apptest"
	"github.com/crankshaft/crankshaft/internal/uring"
)

// lateBound is the longest a request may wait in TestLoopsAnswerEveryConnection: with the loops
// yielding (httpserver's yieldEvery) the slowest of millions took 6 to 14 ms here, quiet or beside
// a busy core; without, 0.3 to 1 s, in every run.
const lateBound = 150 * time.Millisecond

// TestLoopsAnswerEveryConnection: the app with two event loops (epoll, then io_uring) on CPUs 0-1, under crank load -c 32
// -p 128 -t 1 pinned to CPU 1 (crank sweep's inline scenario on a 2-core machine), answers every
// request within lateBound. A loop's system calls are raw, so a loop that always finds work
// enters the Go scheduler only when it yields; one readied behind it waited until a preemption
// happened to land.
func TestLoopsAnswerEveryConnection(t *testing.T) {
	if testing.Short() {
		t.Skip("load test")
	}
	if runtime.NumCPU() < 2 {
		t.Skip("needs two CPUs")
	}
	taskset, err := exec.LookPath("taskset")
	if err != nil {
		t.Fatalf("taskset (util-linux): %v", err)
	}
	bin := apptest.Build(t, "github.com/crankshaft/crankshaft/apps/plaintext")
	crank := apptest.Build(t, "github.com/crankshaft/crankshaft/cmd/crank")
	for _, io := range []string{"epoll", "uring"} {
		t.Run(io, func(t *testing.T) {
			if err := uring.Probe(); io == "uring" && err != nil {
				t.Skipf("io_uring refused here: %v", err)
			}
			answerEveryConnection(t, taskset, bin, crank, io)
		})
	}
}

func answerEveryConnection(t *testing.T, taskset, bin, crank, io string) {
	p := apptest.StartEnv(t, []string{"GOMAXPROCS=2"}, bin, "--io", io) // two loops
	defer p.Stop(t)
	if out, err := exec.Command(taskset, "-a", "-p", "-c", "0,1", strconv.Itoa(p.Pid())).CombinedOutput(); err != nil {
		t.Fatalf("taskset: %v: %s", err, out)
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, taskset, "-c", "1", crank, "load", "http://"+p.Addr+"/plaintext",
		"-c", "32", "-p", "128", "-t", "1", "-d", "2", "--output", "json").Output()
	if err != nil {
		t.Fatalf("crank load: %v\n%s", err, out)
	}
	var doc struct {
		Results map[string]float64 `json:"results"`
	}
	if err := json.NewDecoder(bytes.NewReader(out)).Decode(&doc); err != nil {
		t.Fatalf("crank load's JSON: %v\n%s", err, out)
	}
	r := doc.Results
	late := time.Duration(r["http/latency/max"] * float64(time.Millisecond))
	t.Logf("%.0f requests/s; latency p99 %.2f ms, max %s", r["http/rps/mean"], r["http/latency/99"], late.Round(time.Microsecond))
	if r["http/requests"] == 0 || r["http/requests/errors"] > 0 || r["http/requests/badresponses"] > 0 {
		t.Fatalf("requests %.0f, errors %.0f, bad responses %.0f", r["http/requests"], r["http/requests/errors"], r["http/requests/badresponses"])
	}
	if late > lateBound {
		t.Errorf("a request waited %s, more than %s: a loop waited for another", late.Round(time.Millisecond), lateBound)
	}
}
