package agent

import (
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/crankshaft/crankshaft/internal/agent/buildcache"
	"github.com/crankshaft/crankshaft/internal/agent/proc"
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

// cache is the agent's build cache.
func (a *Agent) cache() buildcache.Cache { return buildcache.Cache{Dir: a.opts.CacheDir} }

// pruneCache applies the cache's size and age bounds; a failure is only logged.
func (a *Agent) pruneCache() {
	st, err := a.cache().Prune(max(a.opts.CacheMaxBytes, 0), max(a.opts.CacheMaxAge, 0), time.Now())
	if err != nil {
		a.log.Warn("build cache not fully pruned", "dir", a.opts.CacheDir, "err", err)
	}
	if st.Removed > 0 {
		a.log.Info("build cache pruned", "dir", a.opts.CacheDir, "removed", st.Removed, "kept", st.Kept, "bytes", st.Bytes)
	}
}

// removeLeftovers deletes the job folders an earlier agent on the same Dir left behind when it
// was killed before it could clean up, and kills what still runs in them: a job's first process
// dies with its agent, but its descendants may not (see proc.KillGroupsIn).
func (a *Agent) removeLeftovers() {
	ents, err := os.ReadDir(a.opts.Dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		id := strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(e.Name(), ".restore"), cloneSuffix), filesSuffix)
		if !e.IsDir() || !isJobID(id) {
			continue
		}
		p := filepath.Join(a.opts.Dir, e.Name())
		if groups := proc.KillGroupsIn(p); len(groups) > 0 {
			a.log.Warn("killed processes left by an earlier agent", "dir", p, "groups", groups)
		}
		a.process.Groups().RemoveJob(id)
		if err := os.RemoveAll(p); err != nil {
			a.log.Warn("leftover job folder not removed", "dir", p, "err", err)
			continue
		}
		a.log.Info("removed a job folder left by an earlier agent", "dir", p)
	}
}

// isJobID reports whether name has the form newID gives job ids.
func isJobID(name string) bool {
	if len(name) != 16 {
		return false
	}
	_, err := hex.DecodeString(name)
	return err == nil
}
