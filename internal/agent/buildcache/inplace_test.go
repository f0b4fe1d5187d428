package buildcache

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
)

// writeTree writes files (name -> content; a name ending in * is executable) under dir.
func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		mode := os.FileMode(0o644)
		if n, ok := cutStar(name); ok {
			name, mode = n, 0o755
		}
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), mode); err != nil {
			t.Fatal(err)
		}
	}
}

func cutStar(name string) (string, bool) {
	if n := len(name); n > 0 && name[n-1] == '*' {
		return name[:n-1], true
	}
	return name, false
}

// readTree reads every regular file under dir (name -> content, * for executable).
func readTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		fi, _ := d.Info()
		rel, _ := filepath.Rel(dir, p)
		if fi.Mode().Perm()&0o111 != 0 {
			rel += "*"
		}
		out[rel] = string(b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func inode(t *testing.T, p string) uint64 {
	t.Helper()
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Sys().(*syscall.Stat_t).Ino
}

// TestRestoreInPlace: a job folder holding the build's sources gets exactly the cached folder
// (the build's outputs added, a source the build changed replaced, one it removed removed), and
// the sources that did not change are left as they were (the same files, not copies).
func TestRestoreInPlace(t *testing.T) {
	sources := map[string]string{"go.mod": "module x\n", "main.go": "package main\n", "gen/version.txt": "dev\n",
		"old/stale.txt": "removed by the build\n", "run.sh*": "#!/bin/sh\n"}
	built := t.TempDir()
	writeTree(t, built, sources)
	writeTree(t, built, map[string]string{"bin/app*": "binary", "gen/version.txt": "1.2.3\n"})
	if err := os.RemoveAll(filepath.Join(built, "old")); err != nil {
		t.Fatal(err)
	}
	cache := Cache{Dir: filepath.Join(t.TempDir(), "cache")}
	if err := cache.Save("k", built); err != nil {
		t.Fatal(err)
	}
	job := filepath.Join(t.TempDir(), "job")
	writeTree(t, job, sources)
	kept := inode(t, filepath.Join(job, "main.go"))
	if ok, err := cache.Restore("k", job); !ok || err != nil {
		t.Fatalf("restore = %v, %v", ok, err)
	}
	want, got := readTree(t, built), readTree(t, job)
	if !maps.Equal(got, want) {
		t.Errorf("restored %v\nwant %v", slices.Sorted(maps.Keys(got)), slices.Sorted(maps.Keys(want)))
		for k, v := range want {
			if got[k] != v {
				t.Errorf("%s = %q, want %q", k, got[k], v)
			}
		}
	}
	if inode(t, filepath.Join(job, "main.go")) != kept {
		t.Error("main.go, the same in the cache, was copied again")
	}
	if fi, err := os.Stat(job); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("job folder mode = %v, %v; want 0700", fi.Mode().Perm(), err)
	}
}

// TestRestoreNotInPlace: a job folder with a folder where the cache has a file, or a link, is
// restored by the whole copy, and ends the same as the cached folder.
func TestRestoreNotInPlace(t *testing.T) {
	built := t.TempDir()
	writeTree(t, built, map[string]string{"a/b": "file", "bin/app*": "binary"})
	cache := Cache{Dir: filepath.Join(t.TempDir(), "cache")}
	if err := cache.Save("k", built); err != nil {
		t.Fatal(err)
	}
	job := filepath.Join(t.TempDir(), "job")
	writeTree(t, job, map[string]string{"a/b/c": "a folder where the cache has a file"})
	if err := os.Symlink("a", filepath.Join(job, "link")); err != nil {
		t.Fatal(err)
	}
	if ok, err := cache.Restore("k", job); !ok || err != nil {
		t.Fatalf("restore = %v, %v", ok, err)
	}
	if got, want := readTree(t, job), readTree(t, built); !maps.Equal(got, want) {
		t.Errorf("restored %v, want %v", got, want)
	}
	if _, err := os.Lstat(filepath.Join(job, "link")); !os.IsNotExist(err) {
		t.Errorf("the link the cache lacks is still there: %v", err)
	}
}
