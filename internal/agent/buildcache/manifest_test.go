package buildcache

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/api"
)

// TestManifestGoesWithItsBuild: a manifest is read only beside its build, and pruning the build
// removes it; one whose build is gone is removed too.
func TestManifestGoesWithItsBuild(t *testing.T) {
	c := Cache{Dir: t.TempDir()}
	m := api.SourceManifest{{Type: '0', Name: "main.go", Mode: 0o644, Sum: [32]byte{1}}}
	if err := c.SaveManifest("k1", m); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Manifest("k1"); !errors.Is(err, ErrNoManifest) {
		t.Errorf("manifest without its build: %v, want ErrNoManifest", err)
	}
	built := t.TempDir()
	if err := os.WriteFile(filepath.Join(built, "app"), []byte("x"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"k1", "k2"} {
		if err := c.Save(k, built); err != nil {
			t.Fatal(err)
		}
	}
	if got, err := c.Manifest("k1"); err != nil || !slices.Equal(got, m) {
		t.Fatalf("manifest read back: %v, %v", got, err)
	}
	if _, err := c.Manifest("k2"); !errors.Is(err, ErrNoManifest) {
		t.Errorf("a build without a manifest: %v, want ErrNoManifest", err)
	}
	if err := c.SaveManifest("gone", m); err != nil { // its build never saved: an orphan
		t.Fatal(err)
	}
	old := time.Now().Add(-48 * time.Hour)
	if err := os.Chtimes(filepath.Join(c.Dir, "k1"), old, old); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Prune(0, 24*time.Hour, time.Now()); err != nil {
		t.Fatal(err)
	}
	ents, _ := os.ReadDir(c.Dir)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if !slices.Equal(names, []string{"k2"}) {
		t.Errorf("after pruning k1: %v, want [k2]", names)
	}
}

// TestSpareRenamedWhole: a spare is a whole copy of its build, taken by a rename into an empty
// job folder; a copy cut short by its context leaves none; it is pruned with its build.
func TestSpareRenamedWhole(t *testing.T) {
	c := Cache{Dir: t.TempDir()}
	built := t.TempDir()
	if err := os.MkdirAll(filepath.Join(built, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"app", "sub/data"} {
		if err := os.WriteFile(filepath.Join(built, f), []byte(f), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Save("k", built); err != nil {
		t.Fatal(err)
	}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	if err := c.MakeSpare(cancelled, "k"); err == nil {
		t.Errorf("a cancelled copy made a spare")
	}
	if ents, _ := os.ReadDir(c.Dir); len(ents) != 1 {
		t.Errorf("a cancelled copy left %d entries, want the build alone", len(ents))
	}
	job := filepath.Join(t.TempDir(), "job")
	if err := os.Mkdir(job, 0o700); err != nil {
		t.Fatal(err)
	}
	if taken, err := c.TakeSpare("k", job); taken || err != nil {
		t.Fatalf("take without a spare: %v, %v", taken, err)
	}
	if err := c.MakeSpare(context.Background(), "k"); err != nil {
		t.Fatal(err)
	}
	spare, _ := os.Stat(filepath.Join(c.Dir, "k.spare"))
	if taken, err := c.TakeSpare("k", job); !taken || err != nil {
		t.Fatalf("take: %v, %v", taken, err)
	}
	got, _ := os.Stat(job)
	if b, err := os.ReadFile(filepath.Join(job, "sub/data")); err != nil || string(b) != "sub/data" || !os.SameFile(spare, got) || got.Mode().Perm() != 0o700 {
		t.Errorf("job folder after take: %q %v, same folder as the spare %v, mode %v", b, err, os.SameFile(spare, got), got.Mode())
	}
	if err := c.MakeSpare(context.Background(), "k"); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-48 * time.Hour)
	if err := os.Chtimes(filepath.Join(c.Dir, "k"), old, old); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Prune(0, 24*time.Hour, time.Now()); err != nil {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(c.Dir); len(ents) != 0 {
		t.Errorf("after pruning the build: %d entries left, want none", len(ents))
	}
}

// TestStartPruneSkippedWhenRecent: a prune with the same bounds within the interval is skipped;
// other bounds, or the interval past, prune.
func TestStartPruneSkippedWhenRecent(t *testing.T) {
	c := Cache{Dir: t.TempDir()}
	now := time.Now()
	if _, pruned, err := c.PruneUnlessRecent(0, 24*time.Hour, time.Hour, now); !pruned || err != nil {
		t.Fatalf("first prune: %v, %v", pruned, err)
	}
	stale := filepath.Join(c.Dir, "old")
	if err := os.Mkdir(stale, 0o700); err != nil {
		t.Fatal(err)
	}
	old := now.Add(-48 * time.Hour)
	if err := os.Chtimes(stale, old, old); err != nil {
		t.Fatal(err)
	}
	if _, pruned, err := c.PruneUnlessRecent(0, 24*time.Hour, time.Hour, now.Add(time.Minute)); pruned || err != nil {
		t.Errorf("same bounds a minute later: pruned %v, %v; want skipped", pruned, err)
	}
	if _, err := os.Stat(stale); err != nil {
		t.Fatalf("a skipped prune removed a build: %v", err)
	}
	if st, pruned, err := c.PruneUnlessRecent(1<<30, 24*time.Hour, time.Hour, now.Add(time.Minute)); !pruned || err != nil || st.Removed != 1 {
		t.Errorf("other bounds: pruned %v, %+v, %v; want the old build removed", pruned, st, err)
	}
	if _, pruned, err := c.PruneUnlessRecent(1<<30, 24*time.Hour, time.Hour, now.Add(2*time.Hour)); !pruned || err != nil {
		t.Errorf("an interval later: pruned %v, %v", pruned, err)
	}
}
