package buildcache

import (
	"os"
	"path/filepath"
	"testing"
)

func TestCacheRoundTrip(t *testing.T) {
	cache := Cache{Dir: filepath.Join(t.TempDir(), ".build-cache")}
	built := t.TempDir()
	if err := os.WriteFile(filepath.Join(built, "app"), []byte("binary"), 0o755); err != nil {
		t.Fatal(err)
	}
	b := Build{Identity: "h1", Command: "go build", GOOS: "linux", GOARCH: "amd64"}
	key := b.Key()
	for _, other := range []Build{
		{Identity: "h1", Command: "go build", GOOS: "linux", GOARCH: "arm64"},
		{Identity: "h2", Command: "go build", GOOS: "linux", GOARCH: "amd64"},
		{Identity: "h1", Command: "go build", GOOS: "linux", GOARCH: "amd64", Env: map[string]string{"CGO_ENABLED": "0"}},
		{Identity: "h1go", Command: " build", GOOS: "linux", GOARCH: "amd64"},
	} {
		if other.Key() == key {
			t.Fatalf("cache keys collide: %+v and %+v", b, other)
		}
	}
	job := filepath.Join(t.TempDir(), "job")
	if ok, err := cache.Restore(key, job); ok || err != nil {
		t.Fatalf("restore before save = %v, %v", ok, err)
	}
	if err := cache.Save(key, built); err != nil {
		t.Fatal(err)
	}
	if err := cache.Save(key, built); err != nil {
		t.Fatalf("second save: %v", err)
	}
	if ok, err := cache.Restore(key, job); !ok || err != nil {
		t.Fatalf("restore = %v, %v", ok, err)
	}
	fi, err := os.Stat(filepath.Join(job, "app"))
	if err != nil || fi.Mode().Perm()&0o111 == 0 {
		t.Errorf("restored app: %v, %v", fi, err)
	}
}
