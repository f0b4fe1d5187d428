package controller

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/agent"
	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/parsers"
	"github.com/crankshaft/crankshaft/internal/testutil"
)

// statusRead is one status read an agent answered: what it waited from, and the state it gave.
type statusRead struct {
	job, from string
	answered  api.JobState
}

// readRecorder records the status reads of jobs through an agent's handler.
type readRecorder struct {
	h     http.Handler
	mu    sync.Mutex
	reads []statusRead
}

func (rr *readRecorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	id, isStatus := strings.CutPrefix(r.URL.Path, "/jobs/")
	if r.Method != http.MethodGet || !isStatus || strings.Contains(id, "/") {
		rr.h.ServeHTTP(w, r)
		return
	}
	rec := httptest.NewRecorder()
	rr.h.ServeHTTP(rec, r)
	var st struct{ State api.JobState }
	_ = json.Unmarshal(rec.Body.Bytes(), &st)
	rr.mu.Lock()
	rr.reads = append(rr.reads, statusRead{job: id, from: r.URL.Query().Get("changedFrom"), answered: st.State})
	rr.mu.Unlock()
	for k, v := range rec.Header() {
		w.Header()[k] = v
	}
	w.WriteHeader(rec.Code)
	_, _ = w.Write(rec.Body.Bytes())
}

// TestReadyLearnedByAWaitingRead: with a poll interval far longer than the run, the controller
// still learns at once that the server is ready and that the load ended: each comes as the answer
// to a status read that waited for the job's state to change, not at a poll's tick. So no fixed
// poll interval sits between a server's readiness and the load's start.
func TestReadyLearnedByAWaitingRead(t *testing.T) {
	a, err := agent.New(agent.Options{Dir: t.TempDir(), Interval: 100 * time.Millisecond, NoToken: true,
		Parsers: map[string]parsers.Parser{"lines": linesParser{}}, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	rr := &readRecorder{h: a.Handler()}
	srv := httptest.NewServer(rr)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		_ = a.Shutdown(ctx)
		srv.Close()
	})
	server := api.Job{Name: "sleeper", Executable: "/bin/sh", Arguments: `-c "echo ready; exec sleep 60"`, ReadyStateText: "ready"}
	load := api.Job{Name: "lines", Executable: "/bin/sh", WaitForExit: true, Parser: "lines", Arguments: `-c "echo http/rps/mean=1"`}
	var progress testutil.SyncBuffer
	c := New(Options{Progress: &progress, PollInterval: time.Minute})
	defer c.Close(context.Background())
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute) // each tick a wait ran into would take a minute
	defer cancel()
	res, err := c.RunOnce(ctx, []Service{
		{Name: "application", Job: server, Endpoints: []string{srv.URL}},
		{Name: "load", Job: load, Endpoints: []string{srv.URL}},
	})
	if err != nil {
		t.Fatalf("%v\nprogress:\n%s", err, progress.String())
	}
	if got := res["load"].Results["http/rps/mean"]; got != 1 {
		t.Errorf("load rps = %v, want 1", got)
	}
	rr.mu.Lock()
	defer rr.mu.Unlock()
	learned := map[api.JobState]bool{}
	for _, r := range rr.reads {
		if r.from == "" || r.answered == api.JobState(r.from) {
			continue
		}
		learned[r.answered] = true
	}
	if !learned[api.StateRunning] || !learned[api.StateStopped] {
		t.Errorf("states learned by waiting reads = %v, want Running (the server ready) and Stopped (the load's end); reads:\n%v", learned, rr.reads)
	}
}
