package extract

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"github.com/crankshaft/crankshaft/internal/testutil"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzExtract: any tar stream (gzipped here, so the fuzzer works on the tar) is extracted without
// a panic, writes nothing beside the folder, and leaves no link that resolves out of it.
func FuzzExtract(f *testing.F) {
	raw := func(es ...testutil.TarEntry) []byte {
		var b bytes.Buffer
		zr, _ := gzip.NewReader(testutil.TarGz(f, es...))
		_, _ = b.ReadFrom(zr)
		return b.Bytes()
	}
	f.Add(raw(testutil.TarEntry{Name: "a/b", Body: "x"}, testutil.TarEntry{Name: "l", Type: tar.TypeSymlink, Link: "a/b"}))
	f.Add(raw(testutil.TarEntry{Name: "a", Type: tar.TypeSymlink, Link: "."}, testutil.TarEntry{Name: "a/a/b", Type: tar.TypeSymlink, Link: "../.."}))
	f.Add(raw(testutil.TarEntry{Name: "h", Type: tar.TypeLink, Link: "x"}, testutil.TarEntry{Name: "x", Body: "1"}))
	f.Fuzz(func(t *testing.T, tarBytes []byte) {
		parent := t.TempDir()
		dir := filepath.Join(parent, "job")
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		var gz bytes.Buffer
		zw := gzip.NewWriter(&gz)
		_, _ = zw.Write(tarBytes)
		_ = zw.Close()
		_, err := Extract(context.Background(), &gz, dir, Limits{MaxBytes: 1 << 20, MaxEntries: 1000})
		if ents, _ := os.ReadDir(parent); len(ents) != 1 {
			t.Fatalf("%d entries beside the job folder", len(ents))
		}
		if err != nil {
			return
		}
		real, _ := filepath.EvalSymlinks(dir)
		_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.Type()&fs.ModeSymlink == 0 {
				return nil
			}
			if to, err := filepath.EvalSymlinks(p); err == nil && to != real && !strings.HasPrefix(to, real+"/") {
				t.Fatalf("link %s resolves to %s, outside the folder", p, to)
			}
			return nil
		})
	})
}
