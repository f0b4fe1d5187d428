package e2e

import (
	"context"
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/api"
)

// treeJob is a job whose shell starts a child, a grandchild and a setsid daemon (out of its
// process group: only its cgroup holds it), all sleeping in the job folder.
func treeJob() api.Job {
	return api.Job{Name: "tree", Executable: "/bin/sh", ReadyStateText: "tree ready",
		Arguments: `-c "sleep 300 & (sleep 301 &) ; (setsid sleep 302 &) ; echo tree ready; wait"`}
}

// startTree submits and starts treeJob, waits until it runs, and checks its processes are there.
func startTree(t *testing.T, ap *agentProc, c *api.Client) string {
	t.Helper()
	id, err := c.Submit(context.Background(), treeJob())
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	waitJobState(t, c, id, 15*time.Second, api.StateRunning)
	if n := len(processesIn(ap.dir)); n < 4 {
		t.Fatalf("%d job processes, want the shell, its child, grandchild and daemon", n)
	}
	return id
}

// TestJobsCleanedUp: the job's processes (grandchildren included) are killed and its folder
// removed on stop and delete, on lease expiry, and on the agent's SIGTERM.
func TestJobsCleanedUp(t *testing.T) {
	t.Run("stop and delete", func(t *testing.T) {
		ap := runAgent(t, nil, fmt.Sprintf("http://127.0.0.1:%d", freePort(t)))
		ap.waitHealthy(t, nil, 15*time.Second)
		c := ap.client(t, "", nil)
		id := startTree(t, ap, c)
		if err := c.Stop(context.Background(), id); err != nil {
			t.Fatal(err)
		}
		if n := len(processesIn(ap.dir)); n != 0 {
			t.Errorf("%d job processes left after stop", n)
		}
		if err := c.Delete(context.Background(), id); err != nil {
			t.Fatal(err)
		}
		ap.waitClean(t, 5*time.Second)
	})
	t.Run("lease expiry", func(t *testing.T) {
		ap := runAgent(t, nil, fmt.Sprintf("http://127.0.0.1:%d", freePort(t)), "--lease", "2s")
		ap.waitHealthy(t, nil, 15*time.Second)
		startTree(t, ap, ap.client(t, "", nil))
		took := ap.waitClean(t, 10*time.Second) // nobody reads the status any more
		t.Logf("clean %s after the last status read (lease 2 s)", took.Round(100*time.Millisecond))
	})
	t.Run("SIGTERM", func(t *testing.T) {
		ap := runAgent(t, nil, fmt.Sprintf("http://127.0.0.1:%d", freePort(t)))
		ap.waitHealthy(t, nil, 15*time.Second)
		startTree(t, ap, ap.client(t, "", nil))
		_ = ap.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-ap.done:
		case <-time.After(15 * time.Second):
			t.Fatal("agent did not exit on SIGTERM")
		}
		if code := ap.cmd.ProcessState.ExitCode(); code != 0 {
			t.Errorf("agent exit code %d after SIGTERM\n%s", code, ap.log())
		}
		ap.waitClean(t, 2*time.Second)
	})
}

// TestKilledAgentRestartCleans: an agent killed with SIGKILL takes its jobs' first processes with
// it (parent-death signal); what they spawned is killed, and the folders removed, when an agent
// starts again on the same --dir.
func TestKilledAgentRestartCleans(t *testing.T) {
	url := fmt.Sprintf("http://127.0.0.1:%d", freePort(t))
	ap := runAgent(t, nil, url)
	ap.waitHealthy(t, nil, 15*time.Second)
	startTree(t, ap, ap.client(t, "", nil))
	_ = ap.cmd.Process.Signal(syscall.SIGKILL)
	<-ap.done
	t.Logf("after SIGKILL: job processes %v, job folders %v", processesIn(ap.dir), ap.jobFolders())
	if len(ap.jobFolders()) != 1 {
		t.Fatalf("job folders %v, want the killed agent's one", ap.jobFolders())
	}
	again := runAgent(t, nil, url, "--dir", ap.dir) // the last --dir wins
	again.dir = ap.dir
	again.waitHealthy(t, nil, 15*time.Second)
	again.waitClean(t, 5*time.Second)
	mustContain(t, "agent log", again.log(), "removed a job folder left by an earlier agent")
}
