package agent

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/crankshaft/crankshaft/internal/privdir"
	"github.com/crankshaft/crankshaft/internal/testutil"

	"github.com/crankshaft/crankshaft/internal/api"
)

// TestJobFolderIsPrivate: a job's folder is 0700, so another local user cannot read its files (an
// appsettings.json password) (issue 25, 12).
func TestJobFolderIsPrivate(t *testing.T) {
	ta := newTestAgent(t, Options{})
	id, err := ta.c.Submit(t.Context(), api.Job{Name: "x", Executable: "/bin/true"})
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(ta.opts.Dir, id))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o700 {
		t.Errorf("job folder mode %s, want 0700", fi.Mode().Perm())
	}
}

// TestBuildCacheOfAnotherUser: a build cache folder another user owns (made first under the shared
// temporary folder, say) is refused at start: its builds would run as this agent's jobs (issue 25, 5).
func TestBuildCacheOfAnotherUser(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to give the folder to another user")
	}
	cache := filepath.Join(t.TempDir(), "cache")
	if err := os.Mkdir(cache, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Chown(cache, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	_, err := New(Options{Dir: t.TempDir(), CacheDir: cache, NoToken: true})
	if err == nil || !strings.Contains(err.Error(), "belongs to another user") {
		t.Errorf("New: %v, want the cache refused", err)
	}
}

// TestSecondSourceUploadRefused: a job's source is uploaded once; a second upload (landing on top
// of the first, and keying the build cache by its digest alone) is answered 409 and leaves the
// folder as the first made it (issue 25, 3).
func TestSecondSourceUploadRefused(t *testing.T) {
	ta := newTestAgent(t, Options{})
	id, err := ta.c.Submit(t.Context(), api.Job{Name: "x", Executable: "/bin/true", Source: &api.Source{LocalFolder: "src"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := ta.c.Upload(t.Context(), id, testutil.TarGz(t, testutil.TarFile("main.go", "package main", 0o644))); err != nil {
		t.Fatal(err)
	}
	err = ta.c.Upload(t.Context(), id, testutil.TarGz(t, testutil.TarFile("zz_evil.go", "package main\nfunc init() {}", 0o644)))
	if statusCode(err) != http.StatusConflict || !strings.Contains(err.Error(), "was uploaded already") {
		t.Errorf("second upload: %v, want 409", err)
	}
	if _, err := os.Stat(filepath.Join(ta.opts.Dir, id, "zz_evil.go")); err == nil {
		t.Error("the second upload's file is in the job's folder")
	}
}

// TestDefaultCacheFolderIsPrivate: without a cache folder of the user's, the build cache under the
// shared temporary folder is 0700 as docs/SECURITY.md says (internal/privdir made it 0711), while
// the job folders' parents stay 0711 so a job given another user reaches its own folder (issue 41).
func TestDefaultCacheFolderIsPrivate(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	t.Setenv("HOME", "")
	t.Setenv("XDG_CACHE_HOME", "")
	a, err := New(Options{NoToken: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := a.Shutdown(context.Background()); err != nil {
			t.Errorf("shutdown: %v", err)
		}
	})
	for dir, want := range map[string]os.FileMode{privdir.Temp("builds"): 0o700, privdir.Root(): 0o711, a.Dir(): 0o711} {
		fi, err := os.Stat(dir)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != want {
			t.Errorf("%s mode %s, want %s", dir, fi.Mode().Perm(), want)
		}
	}
}

// TestJobSideFoldersArePrivate: the folders beside a job's folder that hold its files for a
// while, its build files until its sources are in place (<id>.files) and its clone until it is
// moved in (<id>.clone), were 0755 under the agents' 0711 folder: another local user who learnt
// the job's id read its appsettings.json or the clone's .git/config (a URL with a password).
// They are 0700, as the job's folder.
func TestJobSideFoldersArePrivate(t *testing.T) {
	ta := newTestAgent(t, Options{})
	ctx := t.Context()
	id, err := ta.c.Submit(ctx, api.Job{Executable: "/bin/true", Source: &api.Source{LocalFolder: "own"}, BuildFiles: []string{"appsettings.json"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := ta.c.Upload(ctx, id, testutil.TarGz(t, testutil.TarFile("f", "x", 0o644))); err != nil {
		t.Fatal(err)
	}
	if err := ta.c.UploadBuildFiles(ctx, id, testutil.TarGz(t, testutil.TarFile("appsettings.json", `{"password":"p"}`, 0o644))); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(ta.opts.Dir, id+filesSuffix))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o700 {
		t.Errorf("build files folder %s mode %s, want 0700", id+filesSuffix, fi.Mode().Perm())
	}

	// The clone's folder, seen by a git that says its folder's mode and fails.
	bin, mark := t.TempDir(), filepath.Join(t.TempDir(), "mode")
	if err := os.WriteFile(filepath.Join(bin, "git"), []byte("#!/bin/sh\nstat -c %a . > "+mark+"\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	id = ta.submit(t, api.Job{Executable: "/bin/true", Source: &api.Source{Repository: "file:///nonexistent/repo"}})
	if st := ta.waitState(t, id, api.StateStopped, api.StateFailed); st.State != api.StateFailed {
		t.Fatalf("the clone with a failing git: %s, want Failed", st.State)
	}
	b, err := os.ReadFile(mark)
	if err != nil {
		t.Fatalf("the fake git did not run: %v", err)
	}
	if got := strings.TrimSpace(string(b)); got != "700" {
		t.Errorf("clone folder mode %s, want 700", got)
	}
}
