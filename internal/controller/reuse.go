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

// digested is a source folder's digest, computed once per run.
type digested struct {
	done chan struct{} // closed once src or err is set
	src  *pack.Source
	err  error
}

// prefetch starts hashing the source folders of the services whose source may come from an
// agent's cache, so that it runs while the agents start and answer /info.
func (p *packs) prefetch(ctx context.Context, services []Service, ex pack.Exclude) {
	for _, s := range services {
		if canReuse(s.Job, api.Info{SourceReuse: true}) {
			p.digestOf(ctx, s.Job.Source.LocalFolder, ex)
		}
	}
}

// digestOf is the folder's digest, started on the first call; later calls share it.
func (p *packs) digestOf(ctx context.Context, dir string, ex pack.Exclude) *digested {
	p.mu.Lock()
	defer p.mu.Unlock()
	if d, ok := p.digests[dir]; ok {
		return d
	}
	d := &digested{done: make(chan struct{})}
	if p.digests == nil {
		p.digests = map[string]*digested{}
	}
	p.digests[dir] = d
	go func() {
		defer close(d.done)
		d.src, d.err = pack.Digest(ctx, dir, ex)
	}()
	return d
}

// digest waits for the folder's digest (pack.Digest), or ctx's end.
func (p *packs) digest(ctx context.Context, dir string, ex pack.Exclude) (*pack.Source, error) {
	d := p.digestOf(ctx, dir, ex)
	select {
	case <-d.done:
		return d.src, d.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// prepareSources packs the job's sources, or, when they may come from the agent's cache (canReuse),
// only hashes its own (src non-nil; the packing waits for the agent's answer: reuseOrPack).
func (c *Controller) prepareSources(ctx context.Context, job *api.Job, in *instance, pk *packs) (ups []upload, src *pack.Source, err error) {
	if !canReuse(*job, in.info) {
		ups, err = packSources(job, pk, c.opts.Exclude)
		return ups, nil, err
	}
	if src, err = pk.digest(ctx, job.Source.LocalFolder, c.opts.Exclude); err != nil {
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
		c.step(in.service, "source %s (%d files) taken from the build cache of %s: not uploaded", job.Source.LocalFolder, src.Files, in.url)
		return nil, nil
	}
	c.log.Debug("source not in the agent's cache", "service", in.service, "why", ans.Why)
	return packSources(job, pk, c.opts.Exclude)
}
