package process

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"

	"github.com/crankshaft/crankshaft/internal/agent/buildcache"
	"github.com/crankshaft/crankshaft/internal/agent/runtime"
)

var _ runtime.SourceReuser = (*Runtime)(nil)

// ReuseSource restores the cached build of the source whose extraction gave digest into the
// job's empty folder, in place of its upload, when the controller proves it has that source.
//
// Why this gives a job nothing it could not have made itself: the build restored is the one
// cached under the key of (digest, the job's build command, environment, platform, toolchain,
// user), which is what building the content of that digest gives (buildcache.Build); the digest
// alone is not enough to get it, since digests appear in logs: proof must be the Proof, for this
// job's id, of the manifest the agent itself recorded when it extracted that content, and making
// it needs the SHA-256 of every file, which only the content gives (the agent never says them; the
// manifest sits in its private cache). A proof seen for one job does not serve another.
func (r *Runtime) ReuseSource(_ context.Context, j *runtime.Job, digest, proof string) (bool, string, error) {
	switch {
	case r.opts.Cache.Dir == "":
		return false, "this agent keeps no builds", nil
	case j.Spec.BuildCommand == "":
		return false, "the job has no build command", nil
	case digest == "":
		return false, "no digest given", nil
	}
	key := cacheKey(j, digest)
	m, err := r.opts.Cache.Manifest(key)
	if errors.Is(err, buildcache.ErrNoManifest) {
		return false, "not in the build cache", nil
	}
	if err != nil {
		return false, err.Error(), nil
	}
	if subtle.ConstantTimeCompare([]byte(m.Proof(j.ID)), []byte(proof)) != 1 {
		return false, "the proof does not match the cached source's", nil
	}
	reused, err := r.takeSpare(key, j.Dir)
	if err == nil && !reused {
		reused, err = r.opts.Cache.Restore(key, j.Dir) // Prepare gives the folder to the job's user
	}
	switch {
	case err != nil:
		return false, "", fmt.Errorf("job %s: restoring its cached build: %w", j.ID, err)
	case !reused: // pruned meanwhile
		return false, "not in the build cache", nil
	}
	j.Restored = key
	return true, "", nil
}

// takeSpare renames the build's spare copy into the job's empty folder (buildcache.TakeSpare).
func (r *Runtime) takeSpare(key, dir string) (bool, error) {
	if r.noSpares.Load() {
		return false, nil
	}
	taken, err := r.opts.Cache.TakeSpare(key, dir)
	if errors.Is(err, buildcache.ErrOtherDevice) {
		r.noSpares.Store(true)
		r.log.Info("no spare copies of builds: the jobs' folders are on another file system than the build cache", "cache", r.opts.Cache.Dir)
		return false, nil
	}
	return taken, err
}

// Replenish makes the spare copy of the build the job's folder held (restored or saved), once the
// job is deleted, so the next job of that build takes it by a rename (buildcache.MakeSpare).
func (r *Runtime) Replenish(ctx context.Context, j *runtime.Job) {
	if j.Restored == "" || r.opts.Cache.Dir == "" || r.noSpares.Load() {
		return
	}
	if err := r.opts.Cache.MakeSpare(ctx, j.Restored); err != nil && ctx.Err() == nil {
		r.log.Warn("no spare copy of the build made", "key", j.Restored, "err", err)
	}
}

// recordManifest records the job's source manifest beside its build (once per build), so a later
// job of the same source and build may skip the upload. A failure is only logged.
func (r *Runtime) recordManifest(j *runtime.Job, key string) {
	if len(j.Manifest) == 0 {
		return
	}
	if err := r.opts.Cache.SaveManifest(key, j.Manifest); err != nil {
		j.Log.Warn("source manifest not recorded", "err", err)
	}
}
