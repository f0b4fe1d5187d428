//go:build unix

package agent

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// ownedFolder creates dir (0700) unless it exists, and refuses it unless it is a real folder of
// this user's that nobody else may write: in a shared temporary folder, another user could
// otherwise have made it first, to plant job folders or links.
func ownedFolder(dir string) error {
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	switch {
	case !fi.IsDir():
		return fmt.Errorf("%s is not a folder", dir)
	case !ok || int(st.Uid) != os.Getuid():
		return fmt.Errorf("%s belongs to another user", dir)
	case fi.Mode().Perm()&0o022 != 0:
		return fmt.Errorf("%s may be written by other users (mode %s)", dir, fi.Mode().Perm())
	}
	return nil
}
