package agent

import (
	"context"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/testutil"
)

// The metrics are read where the job listens: its own address, or loopback for a wildcard.
func TestMetricsURLFollowsTheListener(t *testing.T) {
	t.Parallel()
	for addr, want := range map[string]string{"127.0.0.2:0": "127.0.0.2", "0.0.0.0:0": "127.0.0.1"} {
		ln, err := net.Listen("tcp4", addr)
		if err != nil {
			t.Fatal(err)
		}
		port := ln.Addr().(*net.TCPAddr).Port
		j := &job{spec: api.Job{MetricsPort: port}}
		got := j.metricsURL()
		ln.Close()
		if w := "http://" + want + ":" + strconv.Itoa(port) + "/metrics"; got != w {
			t.Errorf("listening on %s: metrics URL %q, want %q", addr, got, w)
		}
	}
}

// Metrics that cannot be read become a job warning, which crank prints.
func TestUnreadableMetricsWarned(t *testing.T) {
	t.Parallel()
	port := testutil.FreePorts(t, 1)[0] // nothing listens there
	ta := newTestAgent(t, Options{})
	id := ta.submit(t, api.Job{Executable: "sh", Arguments: `-c 'sleep 30'`, Interval: api.Duration(20 * time.Millisecond),
		MetricsPort: port})
	ta.waitState(t, id, api.StateRunning)
	want := "runtime counters not read from http://127.0.0.1:" + strconv.Itoa(port) + "/metrics"
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		st, err := ta.c.Status(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		if len(st.Warnings) == 1 && strings.HasPrefix(st.Warnings[0], want) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("warnings %q, want one starting %q", st.Warnings, want)
		}
	}
}
