package extract

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"
)

// ErrNotAFolder marks a destination that goes through a symlink or a file: a named source's
// folder must be a real folder inside the job's folder.
var ErrNotAFolder = errors.New("not a plain folder")

// rootFS is what MkdirInside needs of an *os.Root.
type rootFS interface {
	Lstat(name string) (fs.FileInfo, error)
	Mkdir(name string, perm fs.FileMode) error
}

// MkdirInside makes the folder rel (a cleaned, local slash path) inside root, one component at a
// time, and refuses any component that exists as a symlink or a file: what is then written or
// moved there by path cannot land elsewhere, whatever links the job's other sources hold.
func MkdirInside(root rootFS, rel string) error {
	if rel == "." {
		return nil
	}
	parts := strings.Split(rel, "/")
	for i := range parts {
		p := path.Join(parts[:i+1]...)
		fi, err := root.Lstat(p)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			if err := root.Mkdir(p, 0o755); err != nil {
				return fmt.Errorf("%s: %w", p, err)
			}
		case err != nil:
			return fmt.Errorf("%s: %w", p, err)
		case fi.Mode()&fs.ModeSymlink != 0:
			return fmt.Errorf("%w: %q is a symlink", ErrNotAFolder, p)
		case !fi.IsDir():
			return fmt.Errorf("%w: %q is a file", ErrNotAFolder, p)
		}
	}
	return nil
}
