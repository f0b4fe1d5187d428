package extract

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

type entry struct {
	name, body, link string
	typ              byte
	mode             int64
}

func tgz(t testing.TB, entries ...entry) *bytes.Buffer {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for _, e := range entries {
		if e.typ == 0 {
			e.typ = tar.TypeReg
		}
		if e.mode == 0 {
			e.mode = 0o644
		}
		h := &tar.Header{Name: e.name, Typeflag: e.typ, Mode: e.mode, Size: int64(len(e.body)), Linkname: e.link}
		if e.typ != tar.TypeReg {
			h.Size = 0
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if h.Size > 0 {
			if _, err := tw.Write([]byte(e.body)); err != nil {
				t.Fatal(err)
			}
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

func TestExtract(t *testing.T) {
	dir := t.TempDir()
	_, err := Extract(context.Background(), tgz(t,
		entry{name: "app/", typ: tar.TypeDir, mode: 0o755},
		entry{name: "app/run.sh", body: "#!/bin/sh\necho hi\n", mode: 0o755},
		entry{name: "./app/data/x.txt", body: "x"},
		entry{name: "app/link", typ: tar.TypeSymlink, link: "data/x.txt"},
		entry{name: "app/hard", typ: tar.TypeLink, link: "app/run.sh"},
	), dir, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(dir, "app/run.sh"))
	if err != nil || fi.Mode().Perm() != 0o755 {
		t.Errorf("run.sh: %v, %v", fi, err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "app/link")); err != nil || string(b) != "x" {
		t.Errorf("link reads %q, %v", b, err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "app/hard")); err != nil || string(b) != "#!/bin/sh\necho hi\n" {
		t.Errorf("hard link reads %q, %v", b, err)
	}
}

func TestExtractRejectsEscapes(t *testing.T) {
	cases := map[string][]entry{
		"dot-dot":          {{name: "../escape", body: "owned"}},
		"nested dot-dot":   {{name: "a/../../escape", body: "owned"}},
		"absolute":         {{name: "/ESCAPE_ABS", body: "owned"}},
		"symlink escape":   {{name: "l", typ: tar.TypeSymlink, link: "../escape"}},
		"symlink absolute": {{name: "l", typ: tar.TypeSymlink, link: "/"}},
		"write through symlink": {
			{name: "d", typ: tar.TypeSymlink, link: "."},
			{name: "d/../../escape", body: "owned"},
		},
		"hardlink escape": {{name: "h", typ: tar.TypeLink, link: "../escape"}},
		"device":          {{name: "null", typ: tar.TypeChar}},
		"fifo":            {{name: "pipe", typ: tar.TypeFifo}},
	}
	for name, entries := range cases {
		t.Run(name, func(t *testing.T) {
			parent := t.TempDir()
			dir := filepath.Join(parent, "job")
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			_, err := Extract(context.Background(), tgz(t, entries...), dir, Limits{})
			if !errors.Is(err, ErrBadArchive) {
				t.Fatalf("err = %v, want ErrBadArchive", err)
			}
			if _, err := os.Lstat(filepath.Join(parent, "escape")); !os.IsNotExist(err) {
				t.Errorf("a file was written outside the folder (%v)", err)
			}
			if _, err := os.Lstat("/ESCAPE_ABS"); !os.IsNotExist(err) {
				t.Errorf("a file was written at the root (%v)", err)
			}
		})
	}
}

func TestExtractLimits(t *testing.T) {
	dir := t.TempDir()
	_, err := Extract(context.Background(), tgz(t, entry{name: "a", body: "12345"}, entry{name: "b", body: "67890"}), dir, Limits{MaxBytes: 8})
	if !errors.Is(err, ErrBadArchive) {
		t.Fatalf("err = %v, want ErrBadArchive over the limit", err)
	}
	if _, err := Extract(context.Background(), bytes.NewBufferString("not gzip"), dir, Limits{}); !errors.Is(err, ErrBadArchive) {
		t.Errorf("err = %v, want ErrBadArchive for non-gzip", err)
	}
}
