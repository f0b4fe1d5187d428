package pack

import (
	"archive/tar"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"hash"
	"io"
	"io/fs"
	"os"
	"strconv"

	"github.com/crankshaft/crankshaft/internal/api"
)

// Source is what an agent would make of a folder's upload, computed without packing it: the
// digest its extraction would give (the agent's identity of the source, extract.ExtractRoot) and
// the manifest of its entries, each file's own digest included, from which the proof that crank
// has the content is made (api.SourceManifest.Proof).
type Source struct {
	Digest   string
	Manifest api.SourceManifest
	Files    int
}

// Digest reads the files Pack would pack, as Pack would (the same walk, the same tar headers),
// and returns their Source. It stops between two files once ctx ends.
func Digest(ctx context.Context, dir string, ex Exclude) (*Source, error) {
	sum := sha256.New()
	src := &Source{}
	buf := make([]byte, 64<<10)
	err := walk(dir, ex, func(path, rel string, d fs.DirEntry) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		ent, err := digestEntry(sum, buf, path, rel, d)
		if err != nil || ent == nil {
			return err
		}
		src.Manifest = append(src.Manifest, *ent)
		src.Files++
		return nil
	})
	if err != nil {
		return nil, err
	}
	src.Digest = hex.EncodeToString(sum.Sum(nil))
	return src, nil
}

// digestEntry adds the file to sum as an extraction of its tar entry would (its type, name, mode
// and link, each followed by a zero byte, then its content) and returns its manifest entry; nil
// for a file Pack skips.
func digestEntry(sum hash.Hash, buf []byte, path, rel string, d fs.DirEntry) (*api.SourceEntry, error) {
	info, err := d.Info()
	if err != nil {
		return nil, unlessGone(err) // gone since the folder was listed: left out, as Pack does
	}
	link := ""
	switch {
	case info.Mode()&fs.ModeSymlink != 0:
		if link, err = os.Readlink(path); err != nil {
			return nil, unlessGone(err)
		}
	case !info.Mode().IsRegular():
		return nil, nil
	}
	var f *os.File
	if info.Mode().IsRegular() {
		// Opened before anything is summed, as Pack does: a file gone by now is left out whole.
		if f, err = os.Open(path); err != nil {
			return nil, unlessGone(err)
		}
		defer f.Close()
	}
	hdr, err := tar.FileInfoHeader(info, link) // the header Pack writes: its type and mode
	if err != nil {
		return nil, err
	}
	for _, s := range []string{string(hdr.Typeflag), rel, strconv.FormatInt(hdr.Mode, 8), link} {
		sum.Write([]byte(s))
		sum.Write([]byte{0})
	}
	ent := &api.SourceEntry{Type: hdr.Typeflag, Name: rel, Mode: hdr.Mode, Link: link}
	if hdr.Typeflag != tar.TypeReg {
		return ent, nil
	}
	own := sha256.New()
	if _, err := io.CopyBuffer(io.MultiWriter(sum, own), onlyReader{f}, buf); err != nil {
		return nil, err
	}
	own.Sum(ent.Sum[:0])
	return ent, nil
}

// onlyReader hides the file's WriteTo, so that io.CopyBuffer uses the buffer given rather than
// allocating one per file.
type onlyReader struct{ io.Reader }
