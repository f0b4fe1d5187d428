package agent

import (
	"context"
	"fmt"
	"maps"
	"runtime"
	"time"

	"github.com/crankshaft/crankshaft/internal/agent/buildcache"
	"github.com/crankshaft/crankshaft/internal/agent/proc"
	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/measure"
)

// prepare gets the job's source (a repository is cloned when nothing was uploaded) and builds it,
// or reuses the build of the same source, build command, environment, platform and user. An upload is
// identified by the digest of what the agent extracted (never the hash the client sent); a clone
// by its repository and checked-out commit. It returns that identity of the job's sources.
func (a *Agent) prepare(ctx context.Context, j *job) (string, error) {
	identity, err := a.fetch(ctx, j)
	if err != nil {
		return "", err
	}
	if j.spec.BuildCommand == "" {
		return identity, nil
	}
	key := ""
	if identity != "" {
		key = buildcache.Build{Identity: identity, Command: j.spec.BuildCommand + toolchainSuffix(j.toolchain), Env: j.spec.Environment,
			GOOS: runtime.GOOS, GOARCH: runtime.GOARCH, User: j.user.keyName()}.Key()
		reused, err := a.cache().Restore(key, j.dir)
		if err != nil {
			j.log.Warn("build cache not used", "err", err)
		}
		if reused {
			j.log.Info("build reused", "key", key)
			j.out.WriteString("build reused from the cache (" + key + ")\n")
			j.setBuild(0, true)
			return identity, nil
		}
	}
	return identity, a.build(ctx, j, key)
}

// fetch clones the job's repositories (its own, when nothing was uploaded, then its named
// sources'), puts its build files over them, and returns the identity of all its sources for the caches: each upload's digest as
// extracted, each repository and the commit checked out ("" if the job has no source).
func (a *Agent) fetch(ctx context.Context, j *job) (string, error) {
	src := j.spec.Source
	j.mu.Lock()
	ids := maps.Clone(j.uploads) // the agent's own digests of what it extracted, never the client's hash
	j.mu.Unlock()
	if ids == nil {
		ids = map[string]string{}
	}
	if _, uploaded := ids[""]; src != nil && src.Repository != "" && !uploaded {
		commit, err := a.clone(ctx, j, src.Repository, src.BranchOrCommit, ".")
		if err != nil {
			return "", err
		}
		ids[""] = "git:" + src.Repository + "@" + commit
	}
	for _, s := range j.spec.Sources {
		if s.Repository == "" {
			continue
		}
		commit, err := a.clone(ctx, j, s.Repository, s.BranchOrCommit, s.Dest())
		if err != nil {
			return "", fmt.Errorf("sources.%s: %w", s.Name, err)
		}
		ids[s.Name] = "git:" + s.Repository + "@" + commit
	}
	if _, ok := ids[buildFilesKey]; ok {
		if err := placeBuildFiles(j.dir); err != nil {
			return "", fmt.Errorf("job %s: %w", j.id, err)
		}
	}
	return sourcesIdentity(ids[""], j.spec.Sources, ids), nil
}

// build runs the build command for this machine's platform and caches the result under key
// (when not empty).
func (a *Agent) build(ctx context.Context, j *job, key string) error {
	start := time.Now()
	env := append(j.env(), "GOOS="+runtime.GOOS, "GOARCH="+runtime.GOARCH)
	j.out.WriteString("$ " + j.spec.BuildCommand + "\n")
	if err := j.user.own(j.dir); err != nil {
		return fmt.Errorf("job %s: build: %w", j.id, err)
	}
	err := a.runStep(ctx, j, "build", proc.Spec{Path: "/bin/sh", Args: []string{"-c", j.spec.BuildCommand},
		Dir: j.dir, Env: env, Stdout: j.out, Stderr: j.out, Credential: j.user.credential()}, nil)
	if err != nil {
		return err
	}
	j.setBuild(float64(time.Since(start).Microseconds())/1000, false)
	if key == "" {
		return nil
	}
	if err := a.cache().Save(key, j.dir); err != nil {
		j.log.Warn("build not cached", "err", err)
	}
	a.pruneCache()
	return nil
}

// setBuild records the build time (0 when reused) as status and as a measurement.
func (j *job) setBuild(ms float64, reused bool) {
	j.mu.Lock()
	j.buildMs, j.reused = ms, reused
	j.mu.Unlock()
	j.record(api.Measurement{Name: measure.BuildTime, Timestamp: time.Now(), Value: ms})
}

// toolchainSuffix adds the toolchain (the .NET SDK chosen) to the command a build is keyed by.
func toolchainSuffix(toolchain string) string {
	if toolchain == "" {
		return ""
	}
	return "\x00" + toolchain
}
