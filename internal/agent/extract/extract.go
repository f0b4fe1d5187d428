// Package extract puts a job's uploaded source into its folder: a tar.gz stream extracted safely
// (nothing lands outside the folder) and a build cache keyed by what was extracted.
package extract

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path"
	"strconv"
	"strings"

	"github.com/crankshaft/crankshaft/internal/api"
)

// ErrBadArchive marks archives that are malformed, truncated or try to leave the folder: the
// upload is the client's fault (HTTP 400).
var ErrBadArchive = errors.New("bad archive")

// ErrTooManyEntries marks an archive with more entries than Limits.MaxEntries (HTTP 413).
var ErrTooManyEntries = errors.New("too many entries")

// Limits bound an extraction; zero fields are unbounded.
type Limits struct {
	MaxBytes   int64 // file content written
	MaxEntries int   // archive entries
}

// Extract reads a tar.gz stream into dir and returns the digest of what it extracted (every
// entry's type, name, mode, link target and content, in archive order): the agent's own identity
// of the source, whatever the client says. It rejects absolute names, names or link targets that
// leave dir, entries that go through a symlink, device files and fifos, and stops at the limits
// or when ctx ends (its error is then ctx's). All writes go through an os.Root, so even a link
// that slipped through could not be followed out of dir.
func Extract(ctx context.Context, r io.Reader, dir string, lim Limits) (string, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return "", fmt.Errorf("extract: %w", err)
	}
	defer root.Close()
	return ExtractRoot(ctx, r, root, lim)
}

// ExtractRoot is Extract into the folder root is opened on (a named source's destination).
func ExtractRoot(ctx context.Context, r io.Reader, root *os.Root, lim Limits) (string, error) {
	x, err := ExtractManifest(ctx, r, root, lim)
	return x.Digest, err
}

// Extracted is what an extraction gave: the digest of what it extracted, and its entries with
// each file's own digest (nil when their names were too many bytes to keep: maxManifestBytes).
type Extracted struct {
	Digest   string
	Manifest api.SourceManifest
}

// maxManifestBytes bounds what an extraction keeps of its entries' names and links: a source
// beyond it is extracted, but has no manifest (it cannot be reused without an upload).
const maxManifestBytes = 16 << 20

// ExtractManifest is ExtractRoot, returning the manifest of what it extracted too.
func ExtractManifest(ctx context.Context, r io.Reader, root *os.Root, lim Limits) (Extracted, error) {
	zr, err := gzip.NewReader(ctxReader{ctx, r})
	if err != nil {
		return Extracted{}, badArchive(ctx, err)
	}
	tr := tar.NewReader(zr)
	sum := sha256.New()
	var written, kept int64
	var m api.SourceManifest
	dropped := false
	for count := 0; ; count++ {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return Extracted{hex.EncodeToString(sum.Sum(nil)), m}, drain(ctx, zr)
		}
		if err != nil {
			return Extracted{}, badArchive(ctx, err)
		}
		if lim.MaxEntries > 0 && count >= lim.MaxEntries {
			return Extracted{}, fmt.Errorf("%w: the archive has more than %d entries", ErrTooManyEntries, lim.MaxEntries)
		}
		e := extraction{root: root, h: h, sum: sum, left: lim.MaxBytes - written, bounded: lim.MaxBytes > 0}
		n, ent, err := e.extract(tr)
		if err != nil {
			return Extracted{}, badArchive(ctx, err)
		}
		written += n
		if ent != nil && !dropped {
			if kept += int64(len(ent.Name) + len(ent.Link)); kept > maxManifestBytes {
				m, dropped = nil, true
				continue
			}
			m = append(m, *ent)
		}
	}
}

// maxTrailer bounds what may follow the end of the tar archive (tar pads to a record).
const maxTrailer = 1 << 20

// drain reads the gzip stream to its end, so that a truncated or corrupt one is refused (its
// checksum is in its last bytes).
func drain(ctx context.Context, zr *gzip.Reader) error {
	n, err := io.CopyN(io.Discard, zr, maxTrailer+1)
	switch {
	case errors.Is(err, io.EOF):
		return nil
	case err != nil:
		return badArchive(ctx, err)
	case n > maxTrailer:
		return fmt.Errorf("%w: more than %d bytes after the end of the tar archive", ErrBadArchive, maxTrailer)
	}
	return nil
}

// badArchive returns ctx's cause when ctx has ended (the reads failed because of it), and
// otherwise marks a read that failed mid-archive (truncated gzip or tar) as the client's fault.
func badArchive(ctx context.Context, err error) error {
	switch {
	case ctx.Err() != nil:
		return fmt.Errorf("%w (%w)", context.Cause(ctx), err)
	case errors.Is(err, ErrBadArchive), errors.Is(err, errWrite):
		return err
	}
	var pe *fs.PathError
	if errors.As(err, &pe) { // from the folder, not the stream
		return err
	}
	return fmt.Errorf("%w: %w", ErrBadArchive, err)
}

// errWrite marks a failure to write the folder (the agent's fault, not the archive's).
var errWrite = errors.New("writing the job folder")

// ctxReader stops reading once ctx ends.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, context.Cause(c.ctx)
	}
	return c.r.Read(p)
}

// extraction is one archive entry being extracted.
type extraction struct {
	root    *os.Root
	h       *tar.Header
	sum     hash.Hash
	left    int64
	bounded bool
}

// extract writes the entry and returns the bytes written and its manifest entry (nil for none:
// the folder itself).
func (e extraction) extract(tr *tar.Reader) (int64, *api.SourceEntry, error) {
	h := e.h
	name, err := cleanName(h.Name)
	if err != nil || name == "." {
		return 0, nil, err
	}
	if err := e.noSymlinkIn(path.Dir(name), h.Name); err != nil {
		return 0, nil, err
	}
	for _, s := range []string{string(h.Typeflag), name, strconv.FormatInt(h.Mode, 8), h.Linkname} {
		e.sum.Write([]byte(s))
		e.sum.Write([]byte{0})
	}
	ent := &api.SourceEntry{Type: h.Typeflag, Name: name, Mode: h.Mode, Link: h.Linkname}
	n, err := e.place(tr, name, ent)
	return n, ent, err
}

// place writes the entry name; a file's content digest goes into ent.
func (e extraction) place(tr *tar.Reader, name string, ent *api.SourceEntry) (int64, error) {
	h := e.h
	if err := e.root.MkdirAll(path.Dir(name), 0o755); err != nil {
		return 0, fmt.Errorf("%w: %q: %w", errWrite, h.Name, err)
	}
	switch h.Typeflag {
	case tar.TypeDir:
		return 0, wrapWrite(h.Name, e.root.MkdirAll(name, 0o755|h.FileInfo().Mode().Perm()))
	case tar.TypeReg:
		return e.writeFile(tr, name, ent)
	case tar.TypeSymlink:
		if path.IsAbs(h.Linkname) || !inside(path.Join(path.Dir(name), h.Linkname)) {
			return 0, fmt.Errorf("%w: symlink %q -> %q leaves the folder", ErrBadArchive, h.Name, h.Linkname)
		}
		return 0, wrapWrite(h.Name, e.root.Symlink(h.Linkname, name))
	case tar.TypeLink:
		target, err := cleanName(h.Linkname)
		if err != nil {
			return 0, fmt.Errorf("%w: hard link %q -> %q leaves the folder", ErrBadArchive, h.Name, h.Linkname)
		}
		if err := e.noSymlinkIn(target, h.Linkname); err != nil {
			return 0, err
		}
		return 0, wrapWrite(h.Name, e.root.Link(target, name))
	case tar.TypeXGlobalHeader:
		return 0, nil
	default:
		return 0, fmt.Errorf("%w: %q: entries of type %q (devices, fifos) are not accepted", ErrBadArchive, h.Name, h.Typeflag)
	}
}

// noSymlinkIn refuses a path that goes through a symlink the archive planted: a link's target is
// checked against the folder as written, which a chain of links (a -> ., a/a/b -> ../..) would
// otherwise defeat. Archives made by tar never need it.
func (e extraction) noSymlinkIn(dir, entryName string) error {
	if dir == "." {
		return nil
	}
	parts := strings.Split(dir, "/")
	for i := range parts {
		p := strings.Join(parts[:i+1], "/")
		fi, err := e.root.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			return fmt.Errorf("%w: %q goes through the symlink %q", ErrBadArchive, entryName, p)
		}
	}
	return nil
}

func (e extraction) writeFile(r io.Reader, name string, ent *api.SourceEntry) (int64, error) {
	h := e.h
	if e.bounded && h.Size > e.left {
		return 0, fmt.Errorf("%w: %q: the extracted content exceeds the limit", ErrBadArchive, h.Name)
	}
	f, err := e.root.OpenFile(name, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, h.FileInfo().Mode().Perm())
	if err != nil {
		return 0, fmt.Errorf("%w: %q: %w", errWrite, h.Name, err)
	}
	own := sha256.New()
	n, err := io.Copy(io.MultiWriter(f, e.sum, own), r)
	own.Sum(ent.Sum[:0])
	if cerr := f.Close(); err == nil && cerr != nil {
		return n, fmt.Errorf("%w: %q: %w", errWrite, h.Name, cerr)
	}
	if err != nil {
		return n, fmt.Errorf("extract %q: %w", h.Name, err) // badArchive tells a truncated stream from a full disk
	}
	return n, nil
}

func wrapWrite(name string, err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, fs.ErrExist):
		return fmt.Errorf("%w: %q is in the archive twice", ErrBadArchive, name)
	}
	return fmt.Errorf("%w: %q: %w", errWrite, name, err)
}

// cleanName returns the entry's name relative to the folder, or ErrBadArchive when it is absolute
// or climbs out.
func cleanName(name string) (string, error) {
	if path.IsAbs(name) {
		return "", fmt.Errorf("%w: %q is an absolute path", ErrBadArchive, name)
	}
	c := path.Clean(name)
	if !inside(c) {
		return "", fmt.Errorf("%w: %q leaves the folder", ErrBadArchive, name)
	}
	return c, nil
}

// inside reports whether a cleaned relative path stays within its root.
func inside(p string) bool {
	p = path.Clean(p)
	return !path.IsAbs(p) && p != ".." && !strings.HasPrefix(p, "../")
}
