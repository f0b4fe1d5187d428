//go:build unix

package agent

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// dirLockName is the file in Dir an agent holds locked while it runs.
const dirLockName = ".agent.lock"

// lockDir takes Dir for this agent: a second agent on the same Dir would take the first one's
// job folders for leftovers and kill their processes. The lock ends with the process, so a
// killed agent's Dir is free again at once.
func lockDir(dir string) (*os.File, error) {
	f, err := os.OpenFile(filepath.Join(dir, dirLockName), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("agent: lock %s: %w", dir, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, errDirInUse
		}
		return nil, fmt.Errorf("agent: lock %s: %w", dir, err)
	}
	return f, nil
}
