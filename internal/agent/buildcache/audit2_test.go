package buildcache

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// TestSaveIgnoresSwappedFolders: saving a build (after the build's processes ran, and may still
// run) copies only what is inside the job folder: a second audit had a build's leftover process
// swap its folders for links to a root folder while the agent (root) copied, which put the
// outside file into the cache, and the next job with the same key got it.
func TestSaveIgnoresSwappedFolders(t *testing.T) {
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "target"), []byte("outside\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "job")
	const folders = 20
	for i := range folders {
		d := filepath.Join(dir, "d"+strconv.Itoa(i))
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "target"), []byte("inside\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cache := Cache{Dir: filepath.Join(t.TempDir(), "cache")}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() { // the build's leftover process: each folder becomes a link outside, then back
		for n := 0; ; n++ {
			select {
			case <-stop:
				return
			default:
			}
			d := filepath.Join(dir, "d"+strconv.Itoa(n%folders))
			if os.Rename(d, d+".real") == nil {
				_ = os.Symlink(outside, d)
			}
			back := filepath.Join(dir, "d"+strconv.Itoa((n+folders/2)%folders)) // half the folders are links at a time
			if os.Remove(back) == nil {
				_ = os.Rename(back+".real", back)
			}
		}
	})
	const saves = 100
	failed := 0
	for i := range saves {
		if err := cache.Save("k"+strconv.Itoa(i), dir); err != nil {
			failed++ // a folder that vanished mid-copy fails the save: fine; copying outside is not
		}
	}
	close(stop)
	wg.Wait()
	t.Logf("%d of %d saves failed on a folder that changed under them", failed, saves)
	err := filepath.WalkDir(cache.Dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Type()&os.ModeSymlink != 0 {
			return err
		}
		b, err := os.ReadFile(p)
		if err == nil && strings.Contains(string(b), "outside") {
			t.Errorf("%s holds the file outside the job folder", p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestCacheIsPrivate: the cache and a job folder restored from it are 0700: another local user
// listed the cache (0755) and read every cached build's files, and a restored job folder was
// 0755 where a built one is 0700 (second audit of issue 25).
func TestCacheIsPrivate(t *testing.T) {
	cache := Cache{Dir: filepath.Join(t.TempDir(), "cache")}
	built := filepath.Join(t.TempDir(), "built")
	if err := os.Mkdir(built, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(built, "appsettings.json"), []byte(`{"password":"x"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := cache.Save("k", built); err != nil {
		t.Fatal(err)
	}
	job := filepath.Join(t.TempDir(), "job")
	if ok, err := cache.Restore("k", job); !ok || err != nil {
		t.Fatalf("restore = %v, %v", ok, err)
	}
	for _, p := range []string{cache.Dir, filepath.Join(cache.Dir, "k"), job} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm()&0o077 != 0 {
			t.Errorf("%s: mode %s, want no access for others", p, fi.Mode().Perm())
		}
	}
}

// TestKeyHasUser: a build made as one user is not reused by a job of another: the build ran with
// that user's home (its Go module cache, its ~/.config/go/env), which whoever can run jobs as that
// user may have prepared.
func TestKeyHasUser(t *testing.T) {
	b := Build{Identity: "h1", Command: "go build", GOOS: "linux", GOARCH: "amd64"}
	other := b
	other.User = "nobody"
	if b.Key() == other.Key() {
		t.Errorf("a build as %q and one as the agent's own user share the key %s", other.User, b.Key())
	}
}
