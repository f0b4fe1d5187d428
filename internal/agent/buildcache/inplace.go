package buildcache

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
)

// The job folder a build is restored into already holds the sources the build was made from (the
// cache key's identity is their digest), so most of a cached folder is there already: the build's
// outputs are what differ. restoreInPlace copies only the files that differ and removes those the
// cached folder lacks, instead of copying the whole folder beside the job's and swapping it in (a
// Go app's restore copied about 1,150 files and removed as many; in place, it writes one).

// errNotInPlace: the folder cannot be brought to the cached one in place (a link or a special
// file on either side, or a file where the other has a folder); the whole copy is made instead.
var errNotInPlace = errors.New("not restorable in place")

// plan is what restoreInPlace changes: folders to make, files to copy, paths to remove.
type plan struct {
	mkdirs, copies, removes []string
}

// restoreInPlace makes dir hold what the cached folder src holds. It first compares the two
// without writing (an error there leaves dir as it was), then applies the changes.
func restoreInPlace(src, dir string) (applied bool, err error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return false, err
	}
	defer root.Close()
	cached := os.DirFS(src)
	p, err := compare(cached, root)
	if err != nil {
		return false, err
	}
	for _, d := range p.mkdirs {
		if err := root.Mkdir(d, 0o755); err != nil {
			return true, err
		}
	}
	for _, f := range p.copies {
		if err := copyInto(cached, root, f); err != nil {
			return true, err
		}
	}
	for _, r := range p.removes {
		if err := root.RemoveAll(r); err != nil {
			return true, err
		}
	}
	return true, root.Chmod(".", 0o700) // a job folder is private, restored or not
}

// compare lists what differs between the cached folder and the job's.
func compare(cached fs.FS, root *os.Root) (plan, error) {
	var p plan
	seen := map[string]bool{}
	err := fs.WalkDir(cached, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		seen[name] = true
		if name == "." {
			return nil
		}
		fi, lerr := root.Lstat(name)
		switch {
		case !d.Type().IsRegular() && !d.IsDir():
			return errNotInPlace
		case errors.Is(lerr, fs.ErrNotExist) && d.IsDir():
			p.mkdirs = append(p.mkdirs, name)
		case errors.Is(lerr, fs.ErrNotExist):
			p.copies = append(p.copies, name)
		case lerr != nil:
			return lerr
		case d.IsDir() != fi.IsDir() || (!fi.IsDir() && !fi.Mode().IsRegular()):
			return errNotInPlace
		case !d.IsDir():
			same, err := sameFile(cached, root, name, fi)
			if err != nil {
				return err
			}
			if !same {
				p.copies = append(p.copies, name)
			}
		}
		return nil
	})
	if err != nil {
		return plan{}, err
	}
	err = fs.WalkDir(root.FS(), ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !seen[name] {
			p.removes = append(p.removes, name)
			if d.IsDir() {
				return fs.SkipDir
			}
		}
		return nil
	})
	return p, err
}

// sameFile reports whether the job's file name (fi) has the cached file's size, executable bits
// and bytes.
func sameFile(cached fs.FS, root *os.Root, name string, fi fs.FileInfo) (bool, error) {
	ci, err := fs.Stat(cached, name)
	if err != nil {
		return false, err
	}
	if ci.Size() != fi.Size() || ci.Mode().Perm()&0o111 != fi.Mode().Perm()&0o111 {
		return false, nil
	}
	a, err := cached.Open(name)
	if err != nil {
		return false, err
	}
	defer a.Close()
	b, err := root.Open(name)
	if err != nil {
		return false, err
	}
	defer b.Close()
	return sameBytes(a, b)
}

func sameBytes(a, b io.Reader) (bool, error) {
	bufA, bufB := make([]byte, 64<<10), make([]byte, 64<<10)
	for {
		n, errA := io.ReadFull(a, bufA)
		m, errB := io.ReadFull(b, bufB)
		if n != m || !bytes.Equal(bufA[:n], bufB[:m]) {
			return false, nil
		}
		endA := errA == io.EOF || errA == io.ErrUnexpectedEOF
		endB := errB == io.EOF || errB == io.ErrUnexpectedEOF
		switch {
		case endA && endB:
			return true, nil
		case errA != nil && !endA:
			return false, errA
		case errB != nil && !endB:
			return false, errB
		case endA != endB:
			return false, nil
		}
	}
}

// copyInto writes the cached file name over the job's (removed first: it may be read-only, and
// a file being replaced is never written through), with the cached file's mode as os.CopyFS
// gives it.
func copyInto(cached fs.FS, root *os.Root, name string) error {
	in, err := cached.Open(name)
	if err != nil {
		return err
	}
	defer in.Close()
	fi, err := in.Stat()
	if err != nil {
		return err
	}
	if err := root.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	mode := fs.FileMode(0o666) | fi.Mode().Perm() // as os.CopyFS makes it
	out, err := root.OpenFile(name, os.O_CREATE|os.O_EXCL|os.O_WRONLY, mode)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return fmt.Errorf("%s: %w", path.Clean(name), err)
	}
	return out.Close()
}
