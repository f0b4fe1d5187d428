package extract

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"github.com/crankshaft/crankshaft/internal/testutil"
	"os"
	"path/filepath"
	"testing"
)

func TestExtract(t *testing.T) {
	dir := t.TempDir()
	_, err := Extract(context.Background(), testutil.TarGz(t,
		testutil.TarEntry{Name: "app/", Type: tar.TypeDir, Mode: 0o755},
		testutil.TarEntry{Name: "app/run.sh", Body: "#!/bin/sh\necho hi\n", Mode: 0o755},
		testutil.TarEntry{Name: "./app/data/x.txt", Body: "x"},
		testutil.TarEntry{Name: "app/link", Type: tar.TypeSymlink, Link: "data/x.txt"},
		testutil.TarEntry{Name: "app/hard", Type: tar.TypeLink, Link: "app/run.sh"},
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
	cases := map[string][]testutil.TarEntry{
		"dot-dot":          {{Name: "../escape", Body: "owned"}},
		"nested dot-dot":   {{Name: "a/../../escape", Body: "owned"}},
		"absolute":         {{Name: "/ESCAPE_ABS", Body: "owned"}},
		"symlink escape":   {{Name: "l", Type: tar.TypeSymlink, Link: "../escape"}},
		"symlink absolute": {{Name: "l", Type: tar.TypeSymlink, Link: "/"}},
		"write through symlink": {
			{Name: "d", Type: tar.TypeSymlink, Link: "."},
			{Name: "d/../../escape", Body: "owned"},
		},
		"hardlink escape": {{Name: "h", Type: tar.TypeLink, Link: "../escape"}},
		"device":          {{Name: "null", Type: tar.TypeChar}},
		"fifo":            {{Name: "pipe", Type: tar.TypeFifo}},
	}
	for name, entries := range cases {
		t.Run(name, func(t *testing.T) {
			parent := t.TempDir()
			dir := filepath.Join(parent, "job")
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			_, err := Extract(context.Background(), testutil.TarGz(t, entries...), dir, Limits{})
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
	_, err := Extract(context.Background(), testutil.TarGz(t, testutil.TarEntry{Name: "a", Body: "12345"}, testutil.TarEntry{Name: "b", Body: "67890"}), dir, Limits{MaxBytes: 8})
	if !errors.Is(err, ErrBadArchive) {
		t.Fatalf("err = %v, want ErrBadArchive over the limit", err)
	}
	if _, err := Extract(context.Background(), bytes.NewBufferString("not gzip"), dir, Limits{}); !errors.Is(err, ErrBadArchive) {
		t.Errorf("err = %v, want ErrBadArchive for non-gzip", err)
	}
}
