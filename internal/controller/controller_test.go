package controller

import (
	"bufio"
	"context"
	"fmt"
	"github.com/crankshaft/crankshaft/internal/testutil"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/agent"
	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/parsers"
)

// linesParser reads "name=value" lines: a load generator the test controls.
type linesParser struct{}

func (linesParser) Name() string             { return "lines" }
func (linesParser) Files() map[string][]byte { return nil }
func (linesParser) Parse(r io.Reader) (map[string]float64, error) {
	out := map[string]float64{}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), "="); ok {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				return nil, fmt.Errorf("%q: %w", sc.Text(), err)
			}
			out[k] = f
		}
	}
	return out, nil
}

// startAgent serves an in-process agent whose folder root holds the files given (the load job
// reads them from "..", so each agent reports its own numbers). skew > 0 makes it look like a
// machine whose clock is ahead by skew.
func startAgent(t *testing.T, skew time.Duration, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	a, err := agent.New(agent.Options{Dir: dir, Interval: 100 * time.Millisecond, NoToken: true, // the token is tested in internal/agent and cmd/crank-agent
		Parsers: map[string]parsers.Parser{"lines": linesParser{}}, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	h := a.Handler()
	if skew != 0 {
		h = skewed(h, skew)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		_ = a.Shutdown(ctx)
		srv.Close()
	})
	return srv.URL
}

func otherArch() string {
	if runtime.GOARCH == "arm64" {
		return "amd64"
	}
	return "arm64"
}

// TestSeveralEndpointsSkewAndSkip: one server, a load service on two agents (one with a clock an
// hour ahead), and a service that requires another architecture.
func TestSeveralEndpointsSkewAndSkip(t *testing.T) {
	const skew = time.Hour
	a := startAgent(t, 0, map[string]string{"rps": "1000", "p99": "5"})
	b := startAgent(t, skew, map[string]string{"rps": "2500", "p99": "9"})
	server := api.Job{Name: "sleeper", Executable: "/bin/sh", Arguments: `-c "echo ready; exec sleep 60"`, ReadyStateText: "ready"}
	load := api.Job{Name: "lines", Executable: "/bin/sh", WaitForExit: true, Parser: "lines",
		Arguments: `-c "sleep 0.5; echo http/rps/mean=$(cat ../rps); echo http/latency/99=$(cat ../p99)"`}
	extra := server
	extra.Options.RequiredArchitecture = otherArch()
	var progress testutil.SyncBuffer
	c := New(Options{Progress: &progress, PollInterval: 50 * time.Millisecond})
	defer c.Close(context.Background())
	before := time.Now()
	res, err := c.RunOnce(context.Background(), []Service{
		{Name: "application", Job: server, Endpoints: []string{a}},
		{Name: "extra", Job: extra, Endpoints: []string{a}},
		{Name: "load", Job: load, Endpoints: []string{a, b}},
	})
	after := time.Now()
	if err != nil {
		t.Fatalf("%v\nprogress:\n%s", err, progress.String())
	}
	lr := res["load"]
	if got := lr.Results["http/rps/mean"]; got != 3500 {
		t.Errorf("load rps = %v, want 1000+2500", got)
	}
	if got := lr.Results["http/latency/99"]; got != 9 {
		t.Errorf("load p99 = %v, want max(5, 9)", got)
	}
	if n := len(lr.Measurements); n != 2 {
		t.Fatalf("load timelines: %d, want one per endpoint", n)
	}
	for i, tl := range lr.Measurements {
		for _, m := range tl {
			if m.Timestamp.Before(before) || m.Timestamp.After(after) {
				t.Errorf("timeline %d: %s at %s is outside the run [%s, %s]: not on the controller's clock",
					i, m.Name, m.Timestamp.Format(time.TimeOnly), before.Format(time.TimeOnly), after.Format(time.TimeOnly))
			}
		}
	}
	agents, _ := lr.Environment["agents"].([]map[string]any)
	if len(agents) != 2 || agents[1]["endpoint"] != b {
		t.Fatalf("environment agents = %v", lr.Environment["agents"])
	}
	if off, _ := agents[1]["clockOffsetMs"].(float64); off < 3599e3 || off > 3601e3 {
		t.Errorf("agent b clock offset %v ms, want about %v", off, skew.Milliseconds())
	}
	skipped, _ := res["extra"].Environment["skipped"].(map[string]string)
	if why := skipped[a]; !strings.Contains(why, "requires architecture "+otherArch()) {
		t.Errorf("extra: skipped = %v", res["extra"].Environment)
	}
	if len(res["extra"].Results) != 0 {
		t.Errorf("a skipped service has results: %v", res["extra"].Results)
	}
	if !strings.Contains(progress.String(), "[extra] skipped on "+a+": requires architecture") {
		t.Errorf("progress does not say extra was skipped:\n%s", progress.String())
	}
}

func TestClockOffset(t *testing.T) {
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		rtt, agentAt time.Duration // agentAt: the agent's stamp minus sent
		want         time.Duration
	}{
		{rtt: 2 * time.Millisecond, agentAt: time.Millisecond, want: 0},
		{rtt: 2 * time.Millisecond, agentAt: time.Second + time.Millisecond, want: time.Second},
		{rtt: 2 * time.Millisecond, agentAt: -time.Minute + time.Millisecond, want: -time.Minute},
		{rtt: 100 * time.Millisecond, agentAt: 100 * time.Millisecond, want: 0}, // within the round trip
	} {
		if got := clockOffset(t0, t0.Add(c.rtt), t0.Add(c.agentAt)); got != c.want {
			t.Errorf("rtt %s, stamp at +%s: offset %s, want %s", c.rtt, c.agentAt, got, c.want)
		}
	}
	if got := clockOffset(t0, t0.Add(time.Millisecond), time.Time{}); got != 0 {
		t.Errorf("no agent time: offset %s", got)
	}
}
