package agent

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/moby/moby/client"

	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/testutil"
)

// TestDockerEngineThatStopsAnswering: with two containers running, the engine stops answering. The
// job's deletion and then the agent's shutdown each finish within the stop grace plus the engine
// bound (not never), the job saying its container may be left running.
func TestDockerEngineThatStopsAnswering(t *testing.T) {
	t.Parallel()
	cli := testutil.DockerEngine(t)
	image := testutil.DockerImageName(t, cli)
	ports := testutil.FreePorts(t, 2)
	repo := testutil.FrameworkRepo(t, "../..", ports[0], 0, "")
	t.Cleanup(func() { // what the wedged engine could not remove
		for _, name := range testutil.ContainersOf(t, cli, image) {
			_, _ = cli.ContainerRemove(context.Background(), strings.TrimPrefix(name, "/"), client.ContainerRemoveOptions{Force: true})
		}
	})
	engine := testutil.NewHangingDocker(t)
	const bound = 2 * time.Second
	ta := newTestAgent(t, Options{DockerHost: "unix://" + engine.Sock, EngineTimeout: bound})
	job := func(port int) api.Job {
		return api.Job{Name: "te", ReadyStateText: "Application started",
			Source: &api.Source{Repository: "file://" + repo, BranchOrCommit: "master", DockerImageName: image,
				DockerFile: "frameworks/Go/crankshaft/crankshaft.dockerfile", DockerContextDirectory: "frameworks/Go/crankshaft/",
				DockerCommand: "--port " + strconv.Itoa(port) + " --metrics-port 0"}}
	}
	first := ta.submit(t, job(ports[0]))
	ta.waitState(t, first, api.StateRunning)
	second := ta.submit(t, job(ports[1]))
	ta.waitState(t, second, api.StateRunning)

	engine.Hang()
	limit := StopGrace + bound + 2*time.Second
	start := time.Now()
	ta.mu.Lock()
	j := ta.jobs[first]
	ta.mu.Unlock()
	st := ta.deleteJob(j, "deleted by the test") // what DELETE /jobs/ID does
	if took := time.Since(start); took > limit {
		t.Fatalf("delete with a hung engine took %s, want done within %s", took.Round(100*time.Millisecond), limit)
	}
	if !strings.Contains(strings.Join(st.Warnings, "\n"), "may be left running") {
		t.Errorf("deleted job's warnings %q: want the container said to be possibly left running", st.Warnings)
	}
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	start = time.Now()
	if err := ta.Shutdown(ctx); err != nil {
		t.Errorf("shutdown with a hung engine: %v after %s, want done within %s", err, time.Since(start).Round(100*time.Millisecond), limit)
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		t.Errorf("shutdown used its whole %s", limit)
	}
}
