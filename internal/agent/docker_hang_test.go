package agent

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/moby/moby/client"

	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/testutil"
)

// hangingEngine is the real Docker engine behind a socket that can stop answering at once: new
// connections are accepted and never served, and the bytes of open ones (a container's log
// stream, its wait) stop flowing, as a wedged daemon's do.
type hangingEngine struct {
	sock string
	hung chan struct{}
	once sync.Once
	gone chan struct{} // closed when the test ends: the held connections are let go
}

func newHangingEngine(t *testing.T) *hangingEngine {
	t.Helper()
	target := "/var/run/docker.sock"
	if h, ok := strings.CutPrefix(os.Getenv("DOCKER_HOST"), "unix://"); ok {
		target = h
	}
	e := &hangingEngine{sock: filepath.Join(t.TempDir(), "docker.sock"), hung: make(chan struct{}), gone: make(chan struct{})}
	ln, err := net.Listen("unix", e.sock)
	if err != nil {
		t.Fatal(err)
	}
	var conns sync.WaitGroup
	t.Cleanup(func() {
		ln.Close()
		e.hang()
		close(e.gone)
		conns.Wait()
	})
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns.Go(func() { e.serve(c, target) })
		}
	}()
	return e
}

// hang makes the engine stop answering, for good.
func (e *hangingEngine) hang() { e.once.Do(func() { close(e.hung) }) }

func (e *hangingEngine) serve(c net.Conn, target string) {
	defer c.Close()
	select {
	case <-e.hung: // accepted, never served
		<-e.gone
		return
	default:
	}
	up, err := net.Dial("unix", target)
	if err != nil {
		return
	}
	defer up.Close()
	done := make(chan struct{}, 2)
	pipe := func(dst, src net.Conn) {
		buf := make([]byte, 32<<10)
		for {
			n, err := src.Read(buf)
			select {
			case <-e.hung: // the bytes stop flowing; the connection stays open
				<-e.gone
				done <- struct{}{}
				return
			default:
			}
			if n > 0 {
				if _, werr := dst.Write(buf[:n]); werr != nil {
					break
				}
			}
			if err != nil {
				break
			}
		}
		done <- struct{}{}
	}
	go pipe(up, c)
	go pipe(c, up)
	select {
	case <-done:
	case <-e.hung:
		<-e.gone
	}
}

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
	engine := newHangingEngine(t)
	const bound = 2 * time.Second
	ta := newTestAgent(t, Options{DockerHost: "unix://" + engine.sock, EngineTimeout: bound})
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

	engine.hang()
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
