package docker

import (
	"context"
	"slices"
	"time"

	"github.com/moby/moby/client"
)

// DefaultImageCacheMaxBytes bounds the images the agent keeps (Options.ImageCacheMaxBytes).
const DefaultImageCacheMaxBytes = 16 << 30

// prune applies the image cache's bounds to the images the agent built (in its --dir: another
// agent on the same engine keeps its own, and may be about to run one): those unused (last
// tagged) for CacheMaxAge go, then the least recently used beyond ImageCacheMaxBytes. The image
// keep (the one a job is about to run) and an image a container still uses (the engine refuses
// to remove it) are kept. A failure is only logged.
func (r *Runtime) prune(ctx context.Context, keep string) {
	cli, err := r.engine(ctx)
	if err != nil {
		return
	}
	list, err := cli.ImageList(ctx, client.ImageListOptions{Filters: make(client.Filters).
		Add("label", labelImage).Add("label", labelDir+"="+r.opts.Dir)})
	if err != nil {
		r.log.Warn("image cache not pruned", "err", err)
		return
	}
	type entry struct {
		tags []string
		size int64
		used time.Time
	}
	var images []entry
	for _, im := range list.Items {
		e := entry{tags: im.RepoTags, size: im.Size, used: time.Unix(im.Created, 0)}
		if in, err := cli.ImageInspect(ctx, im.ID); err == nil && in.Metadata.LastTagTime.After(e.used) {
			e.used = in.Metadata.LastTagTime
		}
		images = append(images, e)
	}
	slices.SortFunc(images, func(a, b entry) int { return b.used.Compare(a.used) }) // newest first
	maxBytes, maxAge := r.opts.ImageCacheMaxBytes, r.opts.CacheMaxAge
	var kept int64
	for _, e := range images {
		old := maxAge > 0 && time.Since(e.used) > maxAge
		if slices.Contains(e.tags, keep) || (!old && (maxBytes < 0 || kept+e.size <= maxBytes)) {
			kept += e.size
			continue
		}
		for _, t := range e.tags {
			if _, err := cli.ImageRemove(ctx, t, client.ImageRemoveOptions{PruneChildren: true}); err != nil {
				r.log.Info("cached image kept", "image", t, "err", err)
				continue
			}
			r.log.Info("cached image removed", "image", t, "bytes", e.size, "lastUsed", e.used)
		}
	}
}
