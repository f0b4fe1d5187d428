package extract

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// TestExtractRefusesSymlinkChains: the audit's chain (a -> ., a/a/a/a/a/b -> ../../../../..)
// passes a lexical check of each link but points out of the folder; it was planted (200).
func TestExtractRefusesSymlinkChains(t *testing.T) {
	cases := map[string][]entry{
		"chain": {
			{name: "a", typ: tar.TypeSymlink, link: "."},
			{name: "a/a/a/a/a/b", typ: tar.TypeSymlink, link: "../../../../.."},
		},
		"file through a link": {
			{name: "a", typ: tar.TypeSymlink, link: "."},
			{name: "a/x", body: "x"},
		},
		"hard link through a link": {
			{name: "a", typ: tar.TypeSymlink, link: "."},
			{name: "h", typ: tar.TypeLink, link: "a/a"},
		},
	}
	for name, entries := range cases {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			_, err := Extract(context.Background(), tgz(t, entries...), dir, Limits{})
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
	full := tgz(t, entry{name: "big", body: string(bytes.Repeat([]byte("0123456789"), 10000))}).Bytes()
	for _, n := range []int{len(full) / 2, len(full) - 10} {
		_, err := Extract(context.Background(), bytes.NewReader(full[:n]), t.TempDir(), Limits{})
		if !errors.Is(err, ErrBadArchive) {
			t.Errorf("cut at %d of %d: err = %v, want ErrBadArchive", n, len(full), err)
		}
	}
}

func TestExtractEntryCap(t *testing.T) {
	var es []entry
	for i := range 11 {
		es = append(es, entry{name: "f" + strconv.Itoa(i), body: "x"})
	}
	dir := t.TempDir()
	if _, err := Extract(context.Background(), tgz(t, es...), dir, Limits{MaxEntries: 10}); !errors.Is(err, ErrTooManyEntries) {
		t.Fatalf("11 entries with a cap of 10: %v, want ErrTooManyEntries", err)
	}
	if _, err := Extract(context.Background(), tgz(t, es[:10]...), t.TempDir(), Limits{MaxEntries: 10}); err != nil {
		t.Fatalf("10 entries with a cap of 10: %v", err)
	}
}

// TestExtractStopsWithItsContext: once ctx ends, no further entry is written.
func TestExtractStopsWithItsContext(t *testing.T) {
	var es []entry
	for i := range 1000 {
		es = append(es, entry{name: "f" + strconv.Itoa(i), body: "x"})
	}
	body := tgz(t, es...)
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
	digest := func(es ...entry) string {
		d, err := Extract(context.Background(), tgz(t, es...), t.TempDir(), Limits{})
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	base := digest(entry{name: "a", body: "1"}, entry{name: "b", body: "2"})
	if again := digest(entry{name: "a", body: "1"}, entry{name: "b", body: "2"}); again != base {
		t.Errorf("same content, digests %s and %s", base, again)
	}
	for name, es := range map[string][]entry{
		"content": {{name: "a", body: "1"}, {name: "b", body: "3"}},
		"name":    {{name: "a", body: "1"}, {name: "c", body: "2"}},
		"mode":    {{name: "a", body: "1"}, {name: "b", body: "2", mode: 0o755}},
		"moved":   {{name: "a", body: "12"}, {name: "b", body: ""}},
	} {
		if digest(es...) == base {
			t.Errorf("a change in %s keeps the digest", name)
		}
	}
}
