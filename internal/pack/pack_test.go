package pack

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func write(t *testing.T, root, rel, content string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func names(t *testing.T, tgz []byte) []string {
	t.Helper()
	gz, err := gzip.NewReader(bytes.NewReader(tgz))
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(gz)
	var out []string
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, h.Name)
	}
}

func TestPackHonoursGitignoreAndHashesContent(t *testing.T) {
	root := t.TempDir()
	write(t, root, ".gitignore", "/bin/\n*.log\n")
	write(t, root, "main.go", "package main")
	write(t, root, "bin/app", "binary")
	write(t, root, "run.log", "noise")
	write(t, root, "sub/.gitignore", "secret.txt\n")
	write(t, root, "sub/secret.txt", "x")
	write(t, root, "sub/keep.txt", "y")
	write(t, root, ".git/HEAD", "ref")
	p, err := Pack(root, Exclude{})
	if err != nil {
		t.Fatal(err)
	}
	got := names(t, p.TarGz)
	want := []string{".gitignore", "main.go", "sub/.gitignore", "sub/keep.txt"}
	if !slices.Equal(got, want) || p.Files != len(want) {
		t.Fatalf("packed %v (%d files), want %v", got, p.Files, want)
	}
	again, _ := Pack(root, Exclude{})
	if again.Hash != p.Hash {
		t.Error("hash not stable across packs of the same tree")
	}
	write(t, root, "run.log", "more noise")
	if ignored, _ := Pack(root, Exclude{}); ignored.Hash != p.Hash {
		t.Error("hash changed when only an ignored file changed")
	}
	write(t, root, "main.go", "package main // changed")
	if changed, _ := Pack(root, Exclude{}); changed.Hash == p.Hash {
		t.Error("hash did not change with the content")
	}
}

func TestPackRejectsMissingFolder(t *testing.T) {
	if _, err := Pack(filepath.Join(t.TempDir(), "nope"), Exclude{}); err == nil || !strings.Contains(err.Error(), "nope: not a folder") {
		t.Fatalf("a missing folder: %v", err)
	}
}

// A file removed between the folder's listing and its read (another program writing in the
// checkout while it is packed) is left out; the rest is packed.
func TestVanishedFileLeftOut(t *testing.T) {
	dir := t.TempDir()
	keep, gone := filepath.Join(dir, "keep.txt"), filepath.Join(dir, "gone.json")
	for _, p := range []string{keep, gone} {
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(gone); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	packed := 0
	for _, d := range entries {
		n, err := addEntry(tw, io.Discard, filepath.Join(dir, d.Name()), d.Name(), d)
		if err != nil {
			t.Fatalf("%s: %v", d.Name(), err)
		}
		packed += n
	}
	if packed != 1 {
		t.Fatalf("%d files packed, want 1 (gone.json left out)", packed)
	}
	// The digest of a cached source reads the folder the same way (the gate once failed on
	// "lstat .../partitioned.json: no such file or directory" there).
	digested := 0
	for _, d := range entries {
		ent, err := digestEntry(sha256.New(), make([]byte, 512), filepath.Join(dir, d.Name()), d.Name(), d)
		if err != nil {
			t.Fatalf("digest %s: %v", d.Name(), err)
		}
		if ent != nil {
			digested++
		}
	}
	if digested != 1 {
		t.Fatalf("%d files digested, want 1 (gone.json left out)", digested)
	}
}
