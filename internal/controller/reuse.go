package controller

import (
	"context"
	"fmt"

	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/pack"
)

// A job whose only source is a local folder, built by its build command on an agent that keeps
// builds (Info.SourceReuse), first asks the agent to take that source from its build cache: the
// folder is read and hashed (pack.Digest), not packed, and nothing is sent when the agent holds
// the build of that content. Otherwise it is packed and uploaded as any other.

// canReuse says whether the job's source may come from the agent's build cache.
func canReuse(job api.Job, info api.Info) bool {
	return info.SourceReuse && job.Source != nil && job.Source.LocalFolder != "" && job.BuildCommand != "" &&
		len(job.Sources) == 0 && len(job.BuildFiles) == 0 && !job.InContainer()
}

// digest hashes a source folder once per run (pack.Digest).
func (p *packs) digest(dir string, ex pack.Exclude) (*pack.Source, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if s, ok := p.digests[dir]; ok {
		return s, nil
	}
	s, err := pack.Digest(dir, ex)
	if err != nil {
		return nil, err
	}
	if p.digests == nil {
		p.digests = map[string]*pack.Source{}
	}
	p.digests[dir] = s
	return s, nil
}

// prepareSources packs the job's sources, or, when they may come from the agent's cache (canReuse),
// only hashes its own (src non-nil; the packing waits for the agent's answer: reuseOrPack).
func (c *Controller) prepareSources(job *api.Job, in *instance, pk *packs) (ups []upload, src *pack.Source, err error) {
	if !canReuse(*job, in.info) {
		ups, err = packSources(job, pk, c.opts.Exclude)
		return ups, nil, err
	}
	if src, err = pk.digest(job.Source.LocalFolder, c.opts.Exclude); err != nil {
		return nil, nil, err
	}
	s := *job.Source
	s.Hash = src.Digest
	job.Source = &s
	return nil, src, nil
}

// reuseOrPack asks the agent to take the job's source from its build cache, proving crank has
// its content; when the agent does not hold it, the source is packed for upload.
func (c *Controller) reuseOrPack(ctx context.Context, in *instance, job *api.Job, pk *packs, src *pack.Source) ([]upload, error) {
	ans, err := in.client.ReuseSource(ctx, in.id, api.SourceReuse{Digest: src.Digest, Proof: src.Manifest.Proof(in.id)})
	if err != nil {
		return nil, fmt.Errorf("service %q: asking %s for its cached build: %w", in.service, in.url, err)
	}
	if ans.Reused {
		c.progress(in.service, "source %s (%d files) taken from the build cache of %s: not uploaded", job.Source.LocalFolder, src.Files, in.url)
		return nil, nil
	}
	c.log.Debug("source not in the agent's cache", "service", in.service, "why", ans.Why)
	return packSources(job, pk, c.opts.Exclude)
}
