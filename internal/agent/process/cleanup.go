package process

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/crankshaft/crankshaft/internal/agent/proc"
	"github.com/crankshaft/crankshaft/internal/agent/runtime"
	"github.com/crankshaft/crankshaft/internal/api"
)

// Describe gives /info the jobs' containment (control groups and limits, or why none) and, of
// the load tools a job may name (api.CheckedPrograms), those a job could not run here, with why.
func (r *Runtime) Describe(_ context.Context, info *api.Info) {
	info.Containment = r.groups.Describe()
	info.Missing = r.missing(api.CheckedPrograms...)
}

// missing is, of names, the programs that a job naming them by a bare executable could not run
// here, each with why (LookPath's error).
func (r *Runtime) missing(names ...string) map[string]string {
	out := map[string]string{}
	for _, n := range names {
		if _, err := proc.LookPath(n, "", r.toolDirs...); err != nil {
			out[n] = err.Error()
		}
	}
	return out
}

// Cleanup kills what still runs in the job folders an earlier agent on the same Dir left behind
// (a job's first process dies with its agent, but its descendants may not: proc.KillGroupsIn)
// and removes those jobs' control groups; then it applies the build cache's bounds. The agent
// removes the folders themselves.
func (r *Runtime) Cleanup(ctx context.Context) error {
	if r.opts.Dir != "" {
		ents, err := os.ReadDir(r.opts.Dir)
		if err != nil && !os.IsNotExist(err) {
			r.log.Warn("leftover jobs not looked for", "dir", r.opts.Dir, "err", err)
		}
		for _, e := range ents {
			if err := ctx.Err(); err != nil {
				return fmt.Errorf("process: leftover jobs in %s: %w", r.opts.Dir, err)
			}
			id, _, _ := strings.Cut(e.Name(), ".")
			if !e.IsDir() || !runtime.IsJobID(id) {
				continue
			}
			p := filepath.Join(r.opts.Dir, e.Name())
			if groups := proc.KillGroupsIn(p); len(groups) > 0 {
				r.log.Warn("killed processes left by an earlier agent", "dir", p, "groups", groups)
			}
			r.groups.RemoveJob(id)
		}
	}
	r.pruneAtStart()
	return nil
}
