package process

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	goruntime "runtime"
	"time"

	"github.com/crankshaft/crankshaft/internal/agent/buildcache"
	"github.com/crankshaft/crankshaft/internal/agent/proc"
	"github.com/crankshaft/crankshaft/internal/agent/runtime"
)

// build runs the job's build command for this machine's platform, or reuses the build of the same
// source, build command, environment, platform, toolchain and user from the cache. A job with no
// build command has nothing to build; one whose sources have no identity is built, never cached.
func (r *Runtime) build(ctx context.Context, j *runtime.Job) error {
	if j.Spec.BuildCommand == "" {
		return nil
	}
	key := ""
	if j.Identity != "" && r.opts.Cache.Dir != "" {
		key = cacheKey(j, j.Identity)
		reused := j.Restored != "" && j.Restored == key // restored in place of the upload
		if !reused {
			var err error
			reused, err = r.opts.Cache.Restore(key, j.Dir)
			if errors.Is(err, buildcache.ErrSpoilt) {
				return fmt.Errorf("job %s: %w", j.ID, err)
			}
			if err != nil {
				j.Log.Warn("build cache not used", "err", err)
			}
		}
		if reused {
			j.Restored = key
			j.Log.Info("build reused", "key", key)
			j.Out.WriteString("build reused from the cache (" + key + ")\n")
			j.SetBuild(0, true)
			r.recordManifest(j, key)
			return nil
		}
	}
	start := time.Now()
	env := append(append([]string(nil), j.Env...), "GOOS="+goruntime.GOOS, "GOARCH="+goruntime.GOARCH)
	j.Out.WriteString("$ " + j.Spec.BuildCommand + "\n")
	if err := own(j, j.Dir); err != nil {
		return fmt.Errorf("job %s: build: %w", j.ID, err)
	}
	err := runtime.Step(ctx, j, "build", proc.Spec{Path: "/bin/sh", Args: []string{"-c", j.Spec.BuildCommand},
		Dir: j.Dir, Env: env, Stdout: j.Out, Stderr: j.Out, Credential: j.Credential})
	if err != nil {
		return err
	}
	j.SetBuild(float64(time.Since(start).Microseconds())/1000, false)
	if key == "" {
		return nil
	}
	if err := r.opts.Cache.Save(key, j.Dir); err != nil {
		j.Log.Warn("build not cached", "err", err)
	} else {
		j.Restored = key
		r.recordManifest(j, key)
	}
	r.pruneCache()
	return nil
}

// cacheKey is the build cache's key of the job's build from the source of that identity.
func cacheKey(j *runtime.Job, identity string) string {
	return buildcache.Build{Identity: identity, Command: j.Spec.BuildCommand + toolchainSuffix(j.Toolchain),
		Env: j.Spec.Environment, GOOS: goruntime.GOOS, GOARCH: goruntime.GOARCH, User: j.User}.Key()
}

// toolchainSuffix adds the toolchain (the .NET SDK chosen) to the command a build is keyed by.
func toolchainSuffix(toolchain string) string {
	if toolchain == "" {
		return ""
	}
	return "\x00" + toolchain
}

// pruneCache applies the build cache's size and age bounds; a failure is only logged.
func (r *Runtime) pruneCache() {
	c := r.opts.Cache
	if c.Dir == "" {
		return
	}
	st, err := c.Prune(max(r.opts.CacheMaxBytes, 0), max(r.opts.CacheMaxAge, 0), time.Now())
	if err != nil {
		r.log.Warn("build cache not fully pruned", "dir", c.Dir, "err", err)
	}
	if st.Removed > 0 {
		r.log.Info("build cache pruned", "dir", c.Dir, "removed", st.Removed, "kept", st.Kept, "bytes", st.Bytes)
	}
}

// startPruneEvery: an agent's start prunes the build cache unless it was pruned, with the same
// bounds, more recently (buildcache.PruneUnlessRecent); every save prunes it anyway.
const startPruneEvery = time.Hour

// pruneAtStart applies the build cache's bounds as the agent starts, unless that was done recently.
func (r *Runtime) pruneAtStart() {
	c := r.opts.Cache
	if c.Dir == "" {
		return
	}
	st, pruned, err := c.PruneUnlessRecent(max(r.opts.CacheMaxBytes, 0), max(r.opts.CacheMaxAge, 0), startPruneEvery, time.Now())
	if err != nil {
		r.log.Warn("build cache not fully pruned", "dir", c.Dir, "err", err)
	}
	if pruned && st.Removed > 0 {
		r.log.Info("build cache pruned", "dir", c.Dir, "removed", st.Removed, "kept", st.Kept, "bytes", st.Bytes)
	}
}

// own gives dir to the job's user (nothing for the agent's own).
func own(j *runtime.Job, dir string) error {
	if j.Own == nil {
		return nil
	}
	return j.Own(dir)
}

// writeFiles puts the files the job's programs expect (a parser's helper scripts) in its folder.
func writeFiles(j *runtime.Job) error {
	if len(j.Files) == 0 {
		return nil
	}
	root, err := os.OpenRoot(j.Dir)
	if err != nil {
		return fmt.Errorf("job %s: parser files: %w", j.ID, err)
	}
	defer root.Close()
	for name, data := range j.Files {
		if err := root.MkdirAll(path.Dir(name), 0o755); err != nil {
			return fmt.Errorf("job %s: parser file %q: %w", j.ID, name, err)
		}
		if err := root.WriteFile(name, data, 0o644); err != nil {
			return fmt.Errorf("job %s: parser file %q: %w", j.ID, name, err)
		}
	}
	return nil
}
