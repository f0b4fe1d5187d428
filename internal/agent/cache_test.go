package agent

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/crankshaft/crankshaft/internal/testutil"

	"github.com/crankshaft/crankshaft/internal/api"
)

// TestCacheDirOutlivesTheAgent: a second agent (a new crank run) with the same CacheDir but its
// own Dir reuses the first agent's build.
func TestCacheDirOutlivesTheAgent(t *testing.T) {
	t.Parallel()
	cacheDir := filepath.Join(t.TempDir(), "builds")
	job := api.Job{Executable: "./app", WaitForExit: true, BuildCommand: "cp app.sh app",
		Source: &api.Source{LocalFolder: "src", Hash: "sha256:cafe"}}
	run := func() api.JobStatus {
		ta := newTestAgent(t, Options{CacheDir: cacheDir})
		ctx := context.Background()
		id, err := ta.c.Submit(ctx, job)
		if err != nil {
			t.Fatal(err)
		}
		if err := ta.c.Upload(ctx, id, testutil.TarGz(t, testutil.TarFile("app.sh", "#!/bin/sh\necho hello\n", 0o755))); err != nil {
			t.Fatal(err)
		}
		if err := ta.c.Start(ctx, id); err != nil {
			t.Fatal(err)
		}
		st := ta.waitState(t, id, api.StateStopped, api.StateFailed)
		if st.State != api.StateStopped {
			t.Fatalf("job: %s %s", st.State, st.Error)
		}
		return st
	}
	// The build log is the first part of the output: the command and what it printed (nothing).
	if st := run(); st.BuildReused || st.BuildLogBytes != int64(len("$ cp app.sh app\n")) {
		t.Fatalf("first agent reused a build, or its build log is not split off: %+v", st)
	}
	if st := run(); !st.BuildReused || st.BuildTimeMs != 0 {
		t.Fatalf("second agent did not reuse the build: %+v", st)
	}
	ents, _ := os.ReadDir(cacheDir)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if len(ents) != 3 || ents[0].Name() != ".pruned" || !ents[1].IsDir() || ents[2].Name() != ents[1].Name()+".src" {
		t.Errorf("cache holds %v, want the last prune's mark, one build and its source's manifest", names)
	}
}

// TestLeftoverJobFoldersRemoved: job folders (and their clone and build-files folders) a killed
// agent left in Dir go when the next starts;
// other files stay.
func TestLeftoverJobFoldersRemoved(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, name := range []string{"0123456789abcdef", "0123456789abcdef.restore", "0123456789abcdef.clone", "0123456789abcdef.files", "keep-me", ".build-cache"} {
		if err := os.MkdirAll(filepath.Join(dir, name, "sub"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	var logs strings.Builder
	a, err := New(Options{Dir: dir, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Shutdown(context.Background())
	ents, _ := os.ReadDir(dir)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if got := strings.Join(names, ","); got != ".agent.lock,.build-cache,keep-me" {
		t.Errorf("left in Dir: %s", got)
	}
	if !strings.Contains(logs.String(), "removed a job folder left by an earlier agent") {
		t.Errorf("logs: %s", logs.String())
	}
}

func TestDefaultCacheDir(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", "/somewhere/cache")
	if got := DefaultCacheDir(); got != "/somewhere/cache/crankshaft/builds" {
		t.Errorf("DefaultCacheDir() = %q", got)
	}
}

// TestOneAgentPerDir: a second agent on a Dir in use is refused; once the first shuts down, the
// Dir is free.
func TestOneAgentPerDir(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	first, err := New(Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := New(Options{Dir: dir}); err == nil || !strings.Contains(err.Error(), "in use by another agent") {
		t.Fatalf("second agent on the same Dir: %v", err)
	}
	if err := first.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	again, err := New(Options{Dir: dir})
	if err != nil {
		t.Fatalf("after shutdown: %v", err)
	}
	_ = again.Shutdown(context.Background())
}
