package agent

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/agent/profiler"
	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/profiles"
	"github.com/crankshaft/crankshaft/internal/testutil"
	"github.com/google/pprof/profile"
)

// A Docker job is profiled by perf like a process job: its container's processes, with the
// functions of the binary inside the image named.
func TestProfilesDockerJob(t *testing.T) {
	if err := profiler.Probe(context.Background()); err != nil {
		testutil.Missing(t, "%v", err)
	}
	cli := testutil.DockerEngine(t)
	image := testutil.DockerImageName(t, cli)
	ports := testutil.FreePorts(t, 2)
	repo := testutil.FrameworkRepo(t, "../..", ports[0], ports[1], "")
	ta := newTestAgent(t, Options{})
	ctx := context.Background()
	id := ta.submit(t, api.Job{Name: "te", ReadyStateText: "Application started", Port: ports[0], Collect: true,
		Source: &api.Source{Repository: "file://" + repo, BranchOrCommit: "master", DockerImageName: image,
			DockerFile: "frameworks/Go/crankshaft/crankshaft.dockerfile", DockerContextDirectory: "frameworks/Go/crankshaft/"}})
	ta.waitState(t, id, api.StateRunning)
	if err := ta.c.StartProfiles(ctx, id); err != nil {
		t.Fatal(err)
	}
	url := fmt.Sprintf("http://127.0.0.1:%d/plaintext", ports[0])
	for end := time.Now().Add(2 * time.Second); time.Now().Before(end); {
		if resp, err := http.Get(url); err == nil {
			resp.Body.Close()
		}
	}
	list, err := ta.c.StopProfiles(ctx, id)
	if err != nil || len(list) != 1 || list[0].Error != "" {
		t.Fatalf("profiles %+v, %v", list, err)
	}
	b, err := ta.c.Profile(ctx, id, "perf-cpu")
	if err != nil {
		t.Fatal(err)
	}
	p, err := profile.ParseData(b)
	if err != nil {
		t.Fatal(err)
	}
	// The app serves a connection in (*conn).serve (a goroutine per connection) or, on Linux's
	// event loops, in (*loop).run (epoll) or (*ring).run (io_uring, --io auto's choice where the
	// kernel allows it): whichever path, that function is on the stack of its samples.
	for _, f := range profiles.Top(p, 1000) {
		switch f.Name {
		case "github.com/crankshaft/crankshaft/internal/app/httpserver.(*conn).serve",
			"github.com/crankshaft/crankshaft/internal/app/httpserver.(*loop).run",
			"github.com/crankshaft/crankshaft/internal/app/httpserver.(*ring).run":
			if f.Cum > 0 {
				return
			}
		}
	}
	t.Errorf("the app's functions are not named in the container's profile: %v", profiles.Top(p, 15))
}
