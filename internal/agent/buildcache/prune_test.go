package buildcache

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestPrune keeps the most recently used builds that fit the size bound and are young enough,
// and removes a crashed save's staging folder.
func TestPrune(t *testing.T) {
	now := time.Now()
	c := Cache{Dir: t.TempDir()}
	mk := func(name string, size int, age time.Duration) {
		p := filepath.Join(c.Dir, name)
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(p, "bin"), []byte(strings.Repeat("x", size)), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, now.Add(-age), now.Add(-age)); err != nil {
			t.Fatal(err)
		}
	}
	mk("new", 400, time.Minute)
	mk("mid", 400, time.Hour)
	mk("old", 100, 2*time.Hour)
	mk("ancient", 10, 30*24*time.Hour)
	mk(tmpPrefix+"crashed", 10, 2*time.Hour)
	mk(tmpPrefix+"saving", 10, time.Minute)
	st, err := c.Prune(900, 7*24*time.Hour, now)
	if err != nil {
		t.Fatal(err)
	}
	var left []string
	ents, _ := os.ReadDir(c.Dir)
	for _, e := range ents {
		left = append(left, e.Name())
	}
	if got := strings.Join(left, ","); got != "mid,new,old,"+tmpPrefix+"saving" {
		t.Errorf("left %s", got)
	}
	if st.Removed != 1 || st.Kept != 3 || st.Bytes != 900 {
		t.Errorf("stats %+v", st)
	}
	if st, err := c.Prune(500, 0, now); err != nil || st.Kept != 2 || st.Bytes != 500 {
		t.Errorf("second prune: %+v, %v (want new and old kept)", st, err)
	}
	if st, err := (Cache{Dir: filepath.Join(c.Dir, "none")}).Prune(1, time.Second, now); err != nil || st != (PruneStats{}) {
		t.Errorf("missing cache: %+v, %v", st, err)
	}
}

// TestRestoreFailureLeavesFolder: a restore whose cached copy cannot be read keeps the job folder.
func TestRestoreFailureLeavesFolder(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads unreadable files")
	}
	c := Cache{Dir: t.TempDir()}
	if err := os.MkdirAll(filepath.Join(c.Dir, "k"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(c.Dir, "k", "secret"), []byte("x"), 0o000); err != nil {
		t.Fatal(err)
	}
	job := t.TempDir()
	if err := os.WriteFile(filepath.Join(job, "src"), []byte("source"), 0o644); err != nil {
		t.Fatal(err)
	}
	if ok, err := c.Restore("k", job); ok || err == nil {
		t.Fatalf("restore = %v, %v; want a failure", ok, err)
	}
	if b, err := os.ReadFile(filepath.Join(job, "src")); err != nil || string(b) != "source" {
		t.Errorf("job folder changed: %q, %v", b, err)
	}
}
