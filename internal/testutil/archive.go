package testutil

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"testing"
)

// TarEntry is one entry of a test archive. Type defaults to a regular file and Mode to 0644. A
// regular file holds Body, or Size bytes of "x" when Body is empty; Link is a link's target.
type TarEntry struct {
	Name, Body, Link string
	Type             byte
	Mode, Size       int64
}

// TarFile is a regular file entry.
func TarFile(name, body string, mode int64) TarEntry {
	return TarEntry{Name: name, Body: body, Mode: mode}
}

// TarSymlink is a symbolic link entry.
func TarSymlink(name, target string) TarEntry {
	return TarEntry{Name: name, Link: target, Type: tar.TypeSymlink}
}

// TarGz is a gzip-compressed tar of the entries, in order, as crank uploads a source folder;
// entries may name anything (../escape, absolute paths, links out), for tests of what refuses them.
func TarGz(t testing.TB, entries ...TarEntry) *bytes.Buffer {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for _, e := range entries {
		h := &tar.Header{Name: e.Name, Typeflag: e.Type, Mode: e.Mode, Linkname: e.Link}
		if h.Typeflag == 0 {
			h.Typeflag = tar.TypeReg
		}
		if h.Mode == 0 {
			h.Mode = 0o644
		}
		body := []byte(e.Body)
		if h.Typeflag == tar.TypeReg && len(body) == 0 && e.Size > 0 {
			body = bytes.Repeat([]byte("x"), int(e.Size))
		}
		if h.Typeflag == tar.TypeReg {
			h.Size = int64(len(body))
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write(body); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return &buf
}
