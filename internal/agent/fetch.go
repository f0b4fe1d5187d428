package agent

import (
	"context"
	"fmt"
	"maps"
	"time"

	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/measure"
)

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

// setBuild records the build time (0 when reused) as status and as a measurement.
func (j *job) setBuild(ms float64, reused bool) {
	j.mu.Lock()
	j.buildMs, j.reused = ms, reused
	j.mu.Unlock()
	j.record(api.Measurement{Name: measure.BuildTime, Timestamp: time.Now(), Value: ms})
}
