// Package privdir gives each local user folders of their own for what crank and its agents keep
// (build caches, result spools, token files) when the user has no home or cache folder: under the
// shared temporary folder, where another user could create a folder first (mode 1777) and fill it
// (a planted build run as root, a planted .lp file sent with root's InfluxDB token). A folder is
// used only when it is a real folder (no link), belongs to this user and nobody else may write it.
package privdir

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Root is this user's folder under the temporary folder: crankshaft-UID.
func Root() string {
	return filepath.Join(os.TempDir(), "crankshaft-"+strconv.Itoa(os.Getuid()))
}

// Temp is a folder of this user's under Root: the fallback when there is no home or cache folder.
func Temp(name string) string { return filepath.Join(Root(), name) }

// Make creates dir 0700 (with its missing parents: nobody else may list, enter or write them) and
// checks it, and every folder between it and Root when it lies under Root, as Owned does. The
// agent opens its job folders' parents to 0711 itself (a job given another user passes through).
func Make(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if err := Owned(d); err != nil {
			return err
		}
		if !strings.HasPrefix(d, Root()+string(filepath.Separator)) {
			return nil
		}
	}
}

// Owned refuses dir unless it is a real folder of this user's that no other user may write.
func Owned(dir string) error {
	fi, err := os.Lstat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	uid, ok := owner(fi)
	switch {
	case !fi.IsDir():
		return fmt.Errorf("%s is not a folder (a link or a file): refused", dir)
	case ok && uid != os.Getuid():
		return fmt.Errorf("%s belongs to another user (uid %d): refused", dir, uid)
	case fi.Mode().Perm()&0o022 != 0:
		return fmt.Errorf("%s may be written by other users (mode %s): refused", dir, fi.Mode().Perm())
	}
	return nil
}
