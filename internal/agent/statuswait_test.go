package agent

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/api"
)

// TestStatusWaitEndsAtTheChange: a read waiting for the job's state to change from the one it is
// in returns at the change (well before its wait of an hour, capped at MaxStatusWait), with the new
// state; one from another state, or with a wait of 0, returns at once.
func TestStatusWaitEndsAtTheChange(t *testing.T) {
	t.Parallel()
	ta := newTestAgent(t, Options{})
	ctx := context.Background()
	id, err := ta.c.Submit(ctx, api.Job{Service: "application", Name: "sleeper", Executable: "sh",
		Arguments: `-c 'echo ready; exec sleep 30'`, ReadyStateText: "ready"})
	if err != nil {
		t.Fatal(err)
	}
	if st, err := ta.c.StatusChange(ctx, id, api.StateRunning, time.Hour); err != nil || st.State != api.StateNew {
		t.Fatalf("waiting from another state: %v, %v; want New at once", st.State, err)
	}
	answers := make(chan api.JobStatus, 1)
	go func() {
		st, err := ta.c.StatusChange(ctx, id, api.StateNew, time.Hour)
		if err != nil {
			t.Error(err)
		}
		answers <- st
	}()
	// The read may arrive before or after the start: either way it answers a state other than New.
	if err := ta.c.Start(ctx, id); err != nil {
		t.Fatal(err)
	}
	select {
	case st := <-answers:
		if st.State == api.StateNew {
			t.Errorf("the waiting read answered New, want the state after it")
		}
	case <-time.After(time.Minute):
		t.Fatal("the waiting read did not end at the job's change")
	}
	info, err := ta.c.Info(ctx)
	if err != nil || !info.StatusWait {
		t.Errorf("info.statusWait = %v, %v; want true", info.StatusWait, err)
	}
}

// TestStatusWaitEndsWithItsBound: with no change, a waiting read answers once its wait is over
// (the job still New), and a wait that is not a number is refused.
func TestStatusWaitEndsWithItsBound(t *testing.T) {
	t.Parallel()
	ta := newTestAgent(t, Options{})
	ctx := context.Background()
	id, err := ta.c.Submit(ctx, api.Job{Service: "application", Name: "sleeper", Executable: "sh", Arguments: `-c 'exec sleep 30'`})
	if err != nil {
		t.Fatal(err)
	}
	began := time.Now()
	st, err := ta.c.StatusChange(ctx, id, api.StateNew, 50*time.Millisecond)
	if err != nil || st.State != api.StateNew {
		t.Fatalf("status = %v, %v; want New", st.State, err)
	}
	if waited := time.Since(began); waited < 50*time.Millisecond {
		t.Errorf("answered after %v, before its wait of 50ms", waited)
	}
	if _, _, err := statusWait(httptestRequest("/jobs/" + id + "?changedFrom=New&wait=soon")); err == nil {
		t.Error("wait=soon accepted")
	}
	if _, wait, _ := statusWait(httptestRequest("/jobs/" + id + "?changedFrom=New&wait=3600000")); wait != api.MaxStatusWait {
		t.Errorf("an hour's wait = %v, want the cap %v", wait, api.MaxStatusWait)
	}
}

func httptestRequest(target string) *http.Request {
	r, _ := http.NewRequest(http.MethodGet, "http://agent"+target, nil)
	return r
}
