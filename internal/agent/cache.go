package agent

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/crankshaft/crankshaft/internal/agent/runtime"
	"github.com/crankshaft/crankshaft/internal/privdir"
)

// buildCacheDir is the folder under Dir that keeps builds when no CacheDir is given.
const buildCacheDir = ".build-cache"

// DefaultCacheDir is the build cache of an agent that is given no folder of its own (the agent
// embedded in crank, a crank-agent started without --dir): crankshaft/builds under the user's
// cache folder ($XDG_CACHE_HOME, else ~/.cache), or this user's own folder under the temporary
// folder when the user has none (internal/privdir: never a folder another user could make first).
func DefaultCacheDir() string {
	base, err := os.UserCacheDir()
	if err != nil || base == "" {
		return privdir.Temp("builds") // this user's, checked before use (agent.New)
	}
	return filepath.Join(base, "crankshaft", "builds")
}

// removeLeftovers deletes the job folders an earlier agent on the same Dir left behind when it
// was killed before it could clean up; its runtimes' Cleanup has killed what still ran in them.
func (a *Agent) removeLeftovers() {
	ents, err := os.ReadDir(a.opts.Dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		id := strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(e.Name(), ".restore"), cloneSuffix), filesSuffix), perfSuffix)
		if !e.IsDir() || !runtime.IsJobID(id) {
			continue
		}
		p := filepath.Join(a.opts.Dir, e.Name())
		if err := os.RemoveAll(p); err != nil {
			a.log.Warn("leftover job folder not removed", "dir", p, "err", err)
			continue
		}
		a.log.Info("removed a job folder left by an earlier agent", "dir", p)
	}
}
