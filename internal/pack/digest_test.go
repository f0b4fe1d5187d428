package pack

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/crankshaft/crankshaft/internal/agent/extract"
)

// TestDigestIsTheAgentsDigest: the digest and manifest crank computes of a folder without packing
// it are those the agent's extraction of its packed archive gives: the build cache's identity.
func TestDigestIsTheAgentsDigest(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, ".gitignore", "*.log\n")
	write(t, dir, "main.go", "package main\n")
	write(t, dir, "skipped.log", "not packed\n")
	write(t, dir, "deep/er/"+strings.Repeat("n", 120)+".txt", strings.Repeat("long name, over tar's 100 bytes\n", 3000))
	write(t, dir, "empty", "")
	if err := os.Chmod(filepath.Join(dir, "main.go"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("main.go", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	src, err := Digest(context.Background(), dir, Exclude{})
	if err != nil {
		t.Fatal(err)
	}
	pk, err := Pack(dir, Exclude{})
	if err != nil {
		t.Fatal(err)
	}
	root, err := os.OpenRoot(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	x, err := extract.ExtractManifest(context.Background(), bytes.NewReader(pk.TarGz), root, extract.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if src.Digest != x.Digest {
		t.Errorf("crank's digest %s, the agent's %s", src.Digest, x.Digest)
	}
	if !slices.Equal(src.Manifest, x.Manifest) {
		t.Errorf("crank's manifest\n%+v\nthe agent's\n%+v", src.Manifest, x.Manifest)
	}
	if src.Files != pk.Files || src.Files != 5 {
		t.Errorf("files: digest %d, pack %d, want 5", src.Files, pk.Files)
	}
	write(t, dir, "main.go", "package main // changed\n")
	if again, err := Digest(context.Background(), dir, Exclude{}); err != nil || again.Digest == src.Digest || again.Manifest.Proof("j") == src.Manifest.Proof("j") {
		t.Errorf("a changed file: same digest or proof (%v)", err)
	}
}
