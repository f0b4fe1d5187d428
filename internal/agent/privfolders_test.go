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
