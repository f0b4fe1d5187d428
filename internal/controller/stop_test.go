package controller

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/api"
)

// TestStopAllWithADeadAgent: one agent no longer answers; the other agent's job is still stopped,
// at once, and the failure names the dead agent.
func TestStopAllWithADeadAgent(t *testing.T) {
	live := startAgent(t, 0, nil)
	gone := httptest.NewServer(nil)
	deadURL := gone.URL
	gone.Close()
	c := New(Options{PollInterval: 50 * time.Millisecond, StopTimeout: 5 * time.Second})
	defer c.Close(context.Background())
	ctx := context.Background()
	lc, err := api.NewClient(live, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	dc, err := api.NewClient(deadURL, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	id, err := lc.Submit(ctx, api.Job{Name: "sleeper", Executable: "/bin/sh", Arguments: `-c "echo ready; exec sleep 60"`, ReadyStateText: "ready"})
	if err != nil {
		t.Fatal(err)
	}
	if err := lc.Start(ctx, id); err != nil {
		t.Fatal(err)
	}
	running := &instance{service: "application", url: live, client: lc, id: id}
	if err := c.waitUntil(ctx, []*instance{running}, nil, func(in *instance) bool { return in.status.State == api.StateRunning }); err != nil {
		t.Fatal(err)
	}
	dead := &instance{service: "load", url: deadURL, client: dc, id: "0123", status: api.JobStatus{State: api.StateRunning}}
	start := time.Now()
	err = c.stopAll(ctx, []*instance{dead, running})
	if err == nil || !strings.Contains(err.Error(), `service "load": stopping job on `+deadURL) {
		t.Errorf("stopAll error %v: want the dead agent named", err)
	}
	if strings.Contains(err.Error(), "did not stop within") || time.Since(start) > 4*time.Second {
		t.Errorf("stopAll waited for the dead agent's job (%s): %v", time.Since(start), err)
	}
	st, serr := lc.Status(ctx, id)
	if serr != nil || st.State != api.StateStopped {
		t.Errorf("the live agent's job: %v %v, want Stopped", st.State, serr)
	}
}
