//go:build unix

package agent

import (
	"os"

	"github.com/crankshaft/crankshaft/internal/privdir"
)

// ownedFolder creates dir (0711: a job's user may pass through to its folder) unless it exists, and refuses it unless it is a real folder of
// this user's that nobody else may write: in a shared temporary folder, another user could
// otherwise have made it first, to plant job folders or links.
func ownedFolder(dir string) error {
	if err := privdir.Make(dir); err != nil {
		return err
	}
	// A job given to another user (user: postgres) must pass through to its folder: a folder left
	// 0700 by an earlier version is opened to 0711 (still unlistable, unwritable by others).
	if fi, err := os.Stat(dir); err == nil && fi.Mode().Perm()&0o011 != 0o011 {
		return os.Chmod(dir, fi.Mode().Perm()|0o011)
	}
	return nil
}
