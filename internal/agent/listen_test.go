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

// Once the metrics have been read, the next scrapes keep their URL without looking where the job
// listens again (a read of /proc/net/tcp and tcp6 each tick, milliseconds of the agent's CPU);
// until then each looks, and follows a listener that came up meanwhile.
func TestMetricsURLSettledOnceRead(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp4", "127.0.0.2:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	j := &job{spec: api.Job{MetricsPort: port}}
	before := "http://127.0.0.1:" + strconv.Itoa(port) + "/metrics" // read before the listener came up
	if got, want := j.retarget(before, false), "http://127.0.0.2:"+strconv.Itoa(port)+"/metrics"; got != want {
		t.Errorf("not read yet: next URL %q, want %q", got, want)
	}
	if got := j.retarget(before, true); got != before { // the listener is elsewhere: not looked up
		t.Errorf("read: next URL %q, want %q unchanged", got, before)
	}
}
