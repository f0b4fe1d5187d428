package agent

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/crankshaft/crankshaft/internal/privdir"
)

// workSlots is how many agents without a Dir of their own one user may run at once.
const workSlots = 16

// errDirInUse says another running agent holds the Dir.
var errDirInUse = errors.New("in use by another agent")

// DefaultDirs are the job folder roots an agent given no Dir chooses from (the agent embedded in
// crank, a crank-agent without --dir): crankshaft-<uid>/agents/0..15 under the temporary folder,
// which a job's user (postgres, say) can reach, unlike a home folder. They are fixed, so a start
// after a killed agent finds and cleans what it left (folders and the processes still running in
// them); each is locked while an agent uses it. takeDir makes sure crankshaft-<uid> is this user's.
func DefaultDirs() []string {
	base := filepath.Join(userTempDir(), "agents")
	dirs := make([]string, workSlots)
	for i := range dirs {
		dirs[i] = filepath.Join(base, strconv.Itoa(i))
	}
	return dirs
}

// userTempDir is this user's folder under the temporary folder.
func userTempDir() string { return privdir.Root() }

// takeDir creates and locks the agent's Dir: o.Dir, or the first free of DefaultDirs (o.Dir is
// then set to it).
func takeDir(o *Options) (*os.File, error) {
	if o.Dir != "" {
		if err := os.MkdirAll(o.Dir, 0o711); err != nil {
			return nil, fmt.Errorf("agent: job folder root: %w", err)
		}
		lock, err := lockDir(o.Dir)
		if errors.Is(err, errDirInUse) {
			return nil, fmt.Errorf("agent: %s is %w (each agent needs its own --dir)", o.Dir, err)
		}
		return lock, err
	}
	dirs := DefaultDirs()
	if err := ownedFolder(userTempDir()); err != nil {
		return nil, fmt.Errorf("agent: %w (give --dir)", err)
	}
	for _, dir := range dirs {
		if err := os.MkdirAll(dir, 0o711); err != nil {
			return nil, fmt.Errorf("agent: job folder root: %w", err)
		}
		lock, err := lockDir(dir)
		if errors.Is(err, errDirInUse) {
			continue
		}
		if err != nil {
			return nil, err
		}
		o.Dir = dir
		return lock, nil
	}
	return nil, fmt.Errorf("agent: the %d job folder roots under %s are all in use by other agents: give one a --dir", len(dirs), filepath.Dir(dirs[0]))
}
