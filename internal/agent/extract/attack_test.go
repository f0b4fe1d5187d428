package extract

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"github.com/crankshaft/crankshaft/internal/testutil"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// TestExtractRefusesSymlinkChains: the audit's chain (a -> ., a/a/a/a/a/b -> ../../../../..)
// passes a lexical check of each link but points out of the folder; it was planted (200).
func TestExtractRefusesSymlinkChains(t *testing.T) {
	cases := map[string][]testutil.TarEntry{
		"chain": {
			{Name: "a", Type: tar.TypeSymlink, Link: "."},
			{Name: "a/a/a/a/a/b", Type: tar.TypeSymlink, Link: "../../../../.."},
		},
		"file through a link": {
			{Name: "a", Type: tar.TypeSymlink, Link: "."},
			{Name: "a/x", Body: "x"},
		},
		"hard link through a link": {
			{Name: "a", Type: tar.TypeSymlink, Link: "."},
			{Name: "h", Type: tar.TypeLink, Link: "a/a"},
		},
	}
	for name, entries := range cases {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			_, err := Extract(context.Background(), testutil.TarGz(t, entries...), dir, Limits{})
			if !errors.Is(err, ErrBadArchive) {
				t.Fatalf("err = %v, want ErrBadArchive", err)
			}
			if _, err := os.Lstat(filepath.Join(dir, "a/a/a/a/a/b")); err == nil {
				t.Error("the escaping link was planted")
			}
		})
	}
}

// TestExtractTruncatedIsBadArchive: a stream cut mid-file is the client's fault (it was a 500).
func TestExtractTruncatedIsBadArchive(t *testing.T) {
	full := testutil.TarGz(t, testutil.TarEntry{Name: "big", Body: string(bytes.Repeat([]byte("0123456789"), 10000))}).Bytes()
	for _, n := range []int{len(full) / 2, len(full) - 10} {
		_, err := Extract(context.Background(), bytes.NewReader(full[:n]), t.TempDir(), Limits{})
		if !errors.Is(err, ErrBadArchive) {
			t.Errorf("cut at %d of %d: err = %v, want ErrBadArchive", n, len(full), err)
		}
	}
}

func TestExtractEntryCap(t *testing.T) {
	var es []testutil.TarEntry
	for i := range 11 {
		es = append(es, testutil.TarEntry{Name: "f" + strconv.Itoa(i), Body: "x"})
	}
	dir := t.TempDir()
	if _, err := Extract(context.Background(), testutil.TarGz(t, es...), dir, Limits{MaxEntries: 10}); !errors.Is(err, ErrTooManyEntries) {
		t.Fatalf("11 entries with a cap of 10: %v, want ErrTooManyEntries", err)
	}
	if _, err := Extract(context.Background(), testutil.TarGz(t, es[:10]...), t.TempDir(), Limits{MaxEntries: 10}); err != nil {
		t.Fatalf("10 entries with a cap of 10: %v", err)
	}
}

// TestExtractStopsWithItsContext: once ctx ends, no further entry is written.
func TestExtractStopsWithItsContext(t *testing.T) {
	var es []testutil.TarEntry
	for i := range 1000 {
		es = append(es, testutil.TarEntry{Name: "f" + strconv.Itoa(i), Body: "x"})
	}
	body := testutil.TarGz(t, es...)
	ctx, cancel := context.WithCancelCause(context.Background())
	stop := errors.New("job deleted")
	r := &cancelAfter{r: body, n: 2, cancel: func() { cancel(stop) }}
	dir := t.TempDir()
	_, err := Extract(ctx, r, dir, Limits{})
	if !errors.Is(err, stop) {
		t.Fatalf("err = %v, want the context's cause", err)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) >= 1000 {
		t.Errorf("%d files extracted after the cancel", len(ents))
	}
}

// cancelAfter calls cancel after n reads.
type cancelAfter struct {
	r      io.Reader
	n      int
	cancel func()
}

func (c *cancelAfter) Read(p []byte) (int, error) {
	if c.n--; c.n == 0 {
		c.cancel()
	}
	return c.r.Read(p[:min(len(p), 512)])
}

// TestDigestIsTheContent: the same entries give the same digest; any change in a name, a mode or
// a byte gives another.
func TestDigestIsTheContent(t *testing.T) {
	digest := func(es ...testutil.TarEntry) string {
		d, err := Extract(context.Background(), testutil.TarGz(t, es...), t.TempDir(), Limits{})
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	base := digest(testutil.TarEntry{Name: "a", Body: "1"}, testutil.TarEntry{Name: "b", Body: "2"})
	if again := digest(testutil.TarEntry{Name: "a", Body: "1"}, testutil.TarEntry{Name: "b", Body: "2"}); again != base {
		t.Errorf("same content, digests %s and %s", base, again)
	}
	for name, es := range map[string][]testutil.TarEntry{
		"content": {{Name: "a", Body: "1"}, {Name: "b", Body: "3"}},
		"name":    {{Name: "a", Body: "1"}, {Name: "c", Body: "2"}},
		"mode":    {{Name: "a", Body: "1"}, {Name: "b", Body: "2", Mode: 0o755}},
		"moved":   {{Name: "a", Body: "12"}, {Name: "b", Body: ""}},
	} {
		if digest(es...) == base {
			t.Errorf("a change in %s keeps the digest", name)
		}
	}
}
