package controller

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/testutil"
)

// TestMissingLoadToolRefusedFirst: a load job naming a tool its agent cannot find is refused from
// the agent's /info before the application starts, with the agent's why; a container job naming
// the same executable is not (its image carries it).
func TestMissingLoadToolRefusedFirst(t *testing.T) {
	t.Setenv("PATH", t.TempDir()) // no wrk, bombardier, h2load or ghz anywhere
	a := startAgent(t, 0, nil)
	server := api.Job{Name: "sleeper", Executable: "/bin/sh", Arguments: `-c "echo ready; exec sleep 60"`, ReadyStateText: "ready"}
	load := api.Job{Name: "bombardier", Executable: "bombardier", WaitForExit: true}
	var progress testutil.SyncBuffer
	c := New(Options{Progress: &progress, PollInterval: 50 * time.Millisecond})
	defer c.Close(context.Background())
	_, err := c.RunOnce(context.Background(), []Service{
		{Name: "application", Job: server, Endpoints: []string{a}},
		{Name: "load", Job: load, Endpoints: []string{a}},
	})
	if !errors.Is(err, ErrCannotRun) {
		t.Fatalf("err = %v, want ErrCannotRun", err)
	}
	for _, want := range []string{`service "load": job "bombardier": the agent ` + a + " cannot run it", `executable "bombardier": not found`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("err %q lacks %q", err, want)
		}
	}
	if strings.Contains(progress.String(), "starting job") {
		t.Errorf("a job started before the refusal:\n%s", progress.String())
	}

	in := &instance{service: "load", url: a, job: api.Job{Name: "b", Executable: "bombardier", Source: &api.Source{DockerImageName: "b"}},
		info: api.Info{Missing: map[string]string{"bombardier": "not found"}}}
	if err := checkPrograms([]*instance{in}); err != nil {
		t.Errorf("a container job: %v, want no refusal", err)
	}
	in.job.Source = nil
	in.info.Missing["bombardier"] = "gone\x1b[2J\nforged line " + strings.Repeat("x", 2000)
	err = checkPrograms([]*instance{in})
	if err == nil || strings.ContainsAny(err.Error(), "\x1b\n") || len(err.Error()) > 600 {
		t.Errorf("a hostile agent's reason: %q; want it on one line, without escapes, bounded", err)
	}
}
