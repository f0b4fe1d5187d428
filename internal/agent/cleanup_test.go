package agent

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/api"
)

// treeJob starts a shell that leaves a background grandchild, prints both pids, and returns them.
func treeJob(t *testing.T, ta *testAgent) (id string, pids []int) {
	t.Helper()
	id = ta.submit(t, api.Job{Executable: "sh", Arguments: `-c 'sleep 300 & echo "pids $! $$ end"; sleep 300'`, ReadyStateText: "end"})
	ta.waitState(t, id, api.StateRunning)
	out := ta.waitOutput(t, id, "end")
	f := strings.Fields(out)
	for _, s := range f[1:3] {
		pid, err := strconv.Atoi(s)
		if err != nil {
			t.Fatalf("pids from %q: %v", out, err)
		}
		pids = append(pids, pid)
	}
	return id, pids
}

func TestDeleteKillsProcessTree(t *testing.T) {
	t.Parallel()
	ta := newTestAgent(t, Options{})
	id, pids := treeJob(t, ta)
	if err := ta.c.Delete(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	for _, pid := range pids {
		waitGone(t, pid)
	}
	waitNoFile(t, filepath.Join(ta.Dir(), id))
}

func TestLeaseExpiryStopsAndDeletes(t *testing.T) {
	t.Parallel()
	ta := newTestAgent(t, Options{Lease: 300 * time.Millisecond})
	id, pids := treeJob(t, ta)
	// From here on nobody reads the job's status.
	for _, pid := range pids {
		waitGone(t, pid)
	}
	waitNoFile(t, filepath.Join(ta.Dir(), id))
	// The folder goes just before the job leaves the table: allow that moment, bounded.
	deadline := time.Now().Add(5 * time.Second)
	for len(ta.allJobs()) != 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := len(ta.allJobs()); n != 0 {
		t.Errorf("%d jobs left 5 s after their lease expired and their folder went", n)
	}
}

func TestLeaseRenewedByStatus(t *testing.T) {
	t.Parallel()
	ta := newTestAgent(t, Options{Lease: 300 * time.Millisecond})
	id := ta.submit(t, api.Job{Executable: "sh", Arguments: `-c 'sleep 30'`})
	for end := time.Now().Add(time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		if st, err := ta.c.Status(context.Background(), id); err != nil || st.State.Terminal() {
			t.Fatalf("job polled every 50ms lost its lease: %+v, %v", st, err)
		}
	}
}

func TestShutdownKillsJobsAndRemovesFolders(t *testing.T) {
	t.Parallel()
	ta := newTestAgent(t, Options{Dir: filepath.Join(t.TempDir(), "agent")})
	id, pids := treeJob(t, ta)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := ta.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	for _, pid := range pids {
		waitGone(t, pid)
	}
	if _, err := os.Stat(filepath.Join(ta.Dir(), id)); !os.IsNotExist(err) {
		t.Errorf("job folder left after shutdown: %v", err)
	}
	if _, err := ta.c.Submit(ctx, api.Job{Executable: "sh"}); statusCode(err) != http.StatusServiceUnavailable {
		t.Errorf("submit after shutdown: %v, want 503", err)
	}
}

func TestStartEmbedded(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	token := NewToken()
	url, stop, err := StartEmbedded(ctx, Options{Dir: t.TempDir(), Token: token})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(url, "http://127.0.0.1:") {
		t.Errorf("url = %q", url)
	}
	anon, _ := api.NewClient(url, "", nil)
	if _, err := anon.Submit(ctx, api.Job{Executable: "id"}); statusCode(err) != http.StatusUnauthorized {
		t.Errorf("submit to the embedded agent without its token: %v, want 401", err)
	}
	c, err := api.NewClient(url, token, nil)
	if err != nil {
		t.Fatal(err)
	}
	ta := &testAgent{c: c}
	id, pids := treeJob(t, ta)
	_ = id
	sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := stop(sctx); err != nil {
		t.Fatalf("stop: %v", err)
	}
	for _, pid := range pids {
		waitGone(t, pid)
	}
	if err := c.Health(ctx); err == nil {
		t.Error("embedded agent still answers after stop")
	}
}
