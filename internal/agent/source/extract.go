// Package source puts a job's uploaded source into its folder: a tar.gz stream extracted safely
// (nothing lands outside the folder) and a build cache keyed by content hash.
package source

import (
	"archive/tar"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"strings"
)

// ErrBadArchive marks archives that are malformed or try to leave the folder: the upload is the
// client's fault (HTTP 400).
var ErrBadArchive = errors.New("bad archive")

// Extract reads a tar.gz stream into dir. It rejects absolute names, names or link targets that
// leave dir, device files and fifos, and stops once more than maxBytes of file content has been
// written (0: no bound). All writes go through an os.Root, so even a link that slipped through
// could not be followed out of dir.
func Extract(r io.Reader, dir string, maxBytes int64) error {
	zr, err := gzip.NewReader(r)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrBadArchive, err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return fmt.Errorf("extract: %w", err)
	}
	defer root.Close()
	tr := tar.NewReader(zr)
	var written int64
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%w: %w", ErrBadArchive, err)
		}
		n, err := extractEntry(root, tr, h, maxBytes-written, maxBytes > 0)
		if err != nil {
			return err
		}
		written += n
	}
}

func extractEntry(root *os.Root, tr *tar.Reader, h *tar.Header, left int64, bounded bool) (int64, error) {
	name, err := cleanName(h.Name)
	if err != nil {
		return 0, err
	}
	if name == "." {
		return 0, nil
	}
	if err := root.MkdirAll(path.Dir(name), 0o755); err != nil {
		return 0, fmt.Errorf("extract %q: %w", h.Name, err)
	}
	switch h.Typeflag {
	case tar.TypeDir:
		return 0, root.MkdirAll(name, 0o755|h.FileInfo().Mode().Perm())
	case tar.TypeReg:
		return writeFile(root, tr, name, h, left, bounded)
	case tar.TypeSymlink:
		if path.IsAbs(h.Linkname) || !inside(path.Join(path.Dir(name), h.Linkname)) {
			return 0, fmt.Errorf("%w: symlink %q -> %q leaves the folder", ErrBadArchive, h.Name, h.Linkname)
		}
		return 0, root.Symlink(h.Linkname, name)
	case tar.TypeLink:
		target, err := cleanName(h.Linkname)
		if err != nil {
			return 0, fmt.Errorf("%w: hard link %q -> %q leaves the folder", ErrBadArchive, h.Name, h.Linkname)
		}
		return 0, root.Link(target, name)
	case tar.TypeXGlobalHeader:
		return 0, nil
	default:
		return 0, fmt.Errorf("%w: %q: entries of type %q (devices, fifos) are not accepted", ErrBadArchive, h.Name, h.Typeflag)
	}
}

func writeFile(root *os.Root, r io.Reader, name string, h *tar.Header, left int64, bounded bool) (int64, error) {
	if bounded && h.Size > left {
		return 0, fmt.Errorf("%w: %q: the extracted content exceeds the limit", ErrBadArchive, h.Name)
	}
	f, err := root.OpenFile(name, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, h.FileInfo().Mode().Perm())
	if err != nil {
		return 0, fmt.Errorf("extract %q: %w", h.Name, err)
	}
	n, err := io.Copy(f, r)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return n, fmt.Errorf("extract %q: %w", h.Name, err)
	}
	return n, nil
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
