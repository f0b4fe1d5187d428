package docker_test

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/moby/moby/client"

	"github.com/crankshaft/crankshaft/internal/agent/docker"
	"github.com/crankshaft/crankshaft/internal/agent/runtime/runtimetest"
	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/testutil"
)

// TestConformance: the Docker runtime passes the runtime contract's suite, including a stop once
// the engine stops answering (behind testutil.HangingDocker). The suite's program runs in an image
// FROM scratch built from the job's folder, once: the later cases reuse it from the cache.
func TestConformance(t *testing.T) {
	cli := testutil.DockerEngine(t)
	image := testutil.DockerImageName(t, cli)
	dir := t.TempDir() // the agent's Dir the runtime labels its containers and images with
	identity := "conformance:" + image
	spec := func(t *testing.T, jobDir, args string) api.Job {
		if err := os.WriteFile(filepath.Join(jobDir, "Dockerfile"),
			[]byte("FROM scratch\nCOPY "+runtimetest.Program+" /"+runtimetest.Program+"\nENTRYPOINT [\"/"+runtimetest.Program+"\"]\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return api.Job{Name: "conformance", Source: &api.Source{LocalFolder: ".", DockerFile: "Dockerfile",
			DockerImageName: image, DockerCommand: args}}
	}
	// Each engine call's bound: a hung engine's cases wait it out, and a busy engine's "docker start"
	// took past 2 s in a gate run beside three builds (load 10-17).
	const bound = 5 * time.Second
	runtimetest.Run(t, func(t *testing.T) runtimetest.Subject {
		engine := testutil.NewHangingDocker(t)
		t.Cleanup(func() { removeContainers(t, cli, dir) }) // what a hung engine could not remove
		return runtimetest.Subject{Runtime: docker.New(docker.Options{Dir: dir, Host: "unix://" + engine.Sock, EngineTimeout: bound,
			ImageCacheMaxBytes: -1, Logger: slog.New(slog.NewTextHandler(t.Output(), nil))}), Spec: spec, Identity: identity, Dir: dir, Hang: engine.Hang, Bound: bound}
	})
}

// removeContainers removes the containers a runtime on dir made.
func removeContainers(t *testing.T, cli *client.Client, dir string) {
	ctx := context.Background()
	list, err := cli.ContainerList(ctx, client.ContainerListOptions{All: true,
		Filters: make(client.Filters).Add("label", "crankshaft.agent-dir="+dir)})
	if err != nil {
		t.Errorf("listing the test's containers: %v", err)
		return
	}
	for _, c := range list.Items {
		if _, err := cli.ContainerRemove(ctx, c.ID, client.ContainerRemoveOptions{Force: true}); err != nil {
			t.Errorf("removing %s: %v", strings.Join(c.Names, ","), err)
		}
	}
}
