package controller

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/agent"
	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/testutil"
)

// uploadCounter counts the requests that upload a source, and their bytes.
type uploadCounter struct {
	mu             sync.Mutex
	uploads, bytes int
	reuses         int
}

func (u *uploadCounter) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == http.MethodPut && strings.HasSuffix(r.URL.Path, "/source"):
			body, _ := io.ReadAll(r.Body)
			u.mu.Lock()
			u.uploads++
			u.bytes += len(body)
			u.mu.Unlock()
			r.Body = io.NopCloser(strings.NewReader(string(body)))
		case strings.HasSuffix(r.URL.Path, "/source/reuse"):
			u.mu.Lock()
			u.reuses++
			u.mu.Unlock()
		}
		h.ServeHTTP(w, r)
	})
}

func (u *uploadCounter) take() (uploads, bytes, reuses int) {
	u.mu.Lock()
	defer u.mu.Unlock()
	uploads, bytes, reuses = u.uploads, u.bytes, u.reuses
	u.uploads, u.bytes, u.reuses = 0, 0, 0
	return uploads, bytes, reuses
}

// TestCachedSourceNotUploaded: the second run of a job whose build the agent holds sends no
// upload at all (no request, no byte); a changed file is uploaded again.
func TestCachedSourceNotUploaded(t *testing.T) {
	src := t.TempDir()
	if err := os.WriteFile(filepath.Join(src, "app.sh"), []byte("#!/bin/sh\necho ran\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	a, err := agent.New(agent.Options{Dir: t.TempDir(), CacheDir: filepath.Join(t.TempDir(), "builds"), NoToken: true,
		Interval: 100 * time.Millisecond, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	var count uploadCounter
	srv := httptest.NewServer(count.wrap(a.Handler()))
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		_ = a.Shutdown(ctx)
		srv.Close()
	})
	job := api.Job{Name: "app", Executable: "./app", WaitForExit: true, BuildCommand: "cp app.sh app",
		Source: &api.Source{LocalFolder: src}}
	run := func() (reused bool, progress string) {
		var out testutil.SyncBuffer
		c := New(Options{Progress: &out, PollInterval: 50 * time.Millisecond})
		defer c.Close(context.Background())
		res, err := c.RunOnce(context.Background(), []Service{{Name: "app", Job: job, Endpoints: []string{srv.URL}}})
		if err != nil {
			t.Fatalf("%v\nprogress:\n%s", err, out.String())
		}
		return res["app"].Environment["buildReused"] == true, out.String()
	}
	run()
	if n, b, r := count.take(); n != 1 || b == 0 || r != 1 {
		t.Fatalf("first run: %d uploads (%d bytes), %d reuse asks; want 1 upload after 1 ask", n, b, r)
	}
	reused, progress := run()
	if n, b, r := count.take(); n != 0 || b != 0 || r != 1 || !reused {
		t.Fatalf("second run: %d uploads (%d bytes), %d reuse asks, build reused %v; want none, 1, true", n, b, r, reused)
	}
	if !strings.Contains(progress, "taken from the build cache") || strings.Contains(progress, "uploading") {
		t.Errorf("second run's progress does not say the source came from the cache:\n%s", progress)
	}
	if err := os.WriteFile(filepath.Join(src, "app.sh"), []byte("#!/bin/sh\necho changed\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if reused, _ := run(); reused {
		t.Errorf("a changed file reused the build")
	}
	if n, b, _ := count.take(); n != 1 || b == 0 {
		t.Errorf("changed file: %d uploads (%d bytes), want 1", n, b)
	}
}
