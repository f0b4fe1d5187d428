package agent

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"time"

	"github.com/crankshaft/crankshaft/internal/agent/proc"
	"github.com/crankshaft/crankshaft/internal/agent/source"
	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/measure"
)

// buildCacheDir is the folder under Dir that keeps built job folders by source hash.
const buildCacheDir = ".build-cache"

// prepare gets the job's source (a repository is cloned when nothing was uploaded) and builds it,
// or reuses the build of the same source hash, build command and platform.
func (a *Agent) prepare(ctx context.Context, j *job) error {
	src := j.spec.Source
	j.mu.Lock()
	uploaded := j.uploaded
	j.mu.Unlock()
	if src != nil && src.Repository != "" && !uploaded {
		if err := a.clone(ctx, j, src); err != nil {
			return err
		}
	}
	if j.spec.BuildCommand == "" {
		return nil
	}
	cache := source.Cache{Dir: filepath.Join(a.opts.Dir, buildCacheDir)}
	key := ""
	if src != nil && src.Hash != "" {
		key = source.CacheKey(src.Hash, j.spec.BuildCommand, runtime.GOOS, runtime.GOARCH)
		reused, err := cache.Restore(key, j.dir)
		if err != nil {
			j.log.Warn("build cache not used", "err", err)
		}
		if reused {
			j.log.Info("build reused", "key", key)
			j.setBuild(0, true)
			return nil
		}
	}
	start := time.Now()
	env := append(j.env(), "GOOS="+runtime.GOOS, "GOARCH="+runtime.GOARCH)
	j.out.WriteString("$ " + j.spec.BuildCommand + "\n")
	err := a.runStep(ctx, j, "build", proc.Spec{Path: "/bin/sh", Args: []string{"-c", j.spec.BuildCommand},
		Dir: j.dir, Env: env, Stdout: j.out, Stderr: j.out}, nil)
	if err != nil {
		return err
	}
	j.setBuild(float64(time.Since(start).Microseconds())/1000, false)
	if key != "" {
		if err := cache.Save(key, j.dir); err != nil {
			j.log.Warn("build not cached", "err", err)
		}
	}
	return nil
}

// clone fetches the job's repository into its folder (no shell: the URL is an argument).
func (a *Agent) clone(ctx context.Context, j *job, src *api.Source) error {
	git, err := proc.LookPath("git", j.dir)
	if err != nil {
		return fmt.Errorf("job %s: source %s: %w", j.id, src.Repository, err)
	}
	spec := proc.Spec{Path: git, Args: []string{"clone", "--quiet", "--", src.Repository, "."}, Dir: j.dir, Env: j.env(), Stdout: j.out, Stderr: j.out}
	if err := a.runStep(ctx, j, "git clone "+src.Repository, spec, nil); err != nil {
		return err
	}
	if src.BranchOrCommit == "" {
		return nil
	}
	spec.Args = []string{"checkout", "--quiet", src.BranchOrCommit, "--"}
	return a.runStep(ctx, j, "git checkout "+src.BranchOrCommit, spec, nil)
}

// setBuild records the build time (0 when reused) as status and as a measurement.
func (j *job) setBuild(ms float64, reused bool) {
	j.mu.Lock()
	j.buildMs, j.reused = ms, reused
	j.mu.Unlock()
	j.record(api.Measurement{Name: measure.BuildTime, Timestamp: time.Now(), Value: ms})
}
