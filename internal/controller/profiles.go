package controller

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/crankshaft/crankshaft/internal/profiles"
	"github.com/crankshaft/crankshaft/internal/results"
	"github.com/crankshaft/crankshaft/internal/safewrite"
	"github.com/google/pprof/profile"
)

// topFunctions is how many functions a profile keeps in the results.
const topFunctions = 10

// knownProfile are the profiles an agent records (agent/profiler).
var knownProfile = map[string]bool{"perf-cpu": true, "go-cpu": true, "go-mutex": true, "go-block": true}

// wantsProfiles tells whether an instance's job asks for profiles (collect, goProfiles).
func wantsProfiles(in *instance) bool {
	return in.status.Skipped == "" && (in.job.Collect || in.job.GoProfiles)
}

// measuredPoll is how often the loads' status is read for the start of their measured run.
const measuredPoll = 50 * time.Millisecond

// openAtMeasured opens the profiled windows once every load's measured run has begun (after its
// warm-up run), reading the loads' status on its own. The function it returns stops waiting and
// returns once the windows are open or will not be.
func (c *Controller) openAtMeasured(ctx context.Context, servers, loads []*instance) (wait func()) {
	if !slices.ContainsFunc(servers, wantsProfiles) {
		return func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		if c.measuredBegun(ctx, loads) {
			c.openProfiles(ctx, servers)
		}
	}()
	return func() { cancel(); <-done }
}

// measuredBegun waits until each load's measured run has begun, or it has ended or been skipped;
// false when ctx ended first.
func (c *Controller) measuredBegun(ctx context.Context, loads []*instance) bool {
	t := time.NewTicker(measuredPoll)
	defer t.Stop()
	for {
		begun := true
		for _, in := range loads {
			if in.id == "" {
				continue
			}
			st, err := in.client.Status(ctx, in.id)
			if err != nil || (st.MeasuredStart == nil && st.Skipped == "" && !st.State.Terminal()) {
				begun = false
				break
			}
		}
		if begun {
			return true
		}
		select {
		case <-ctx.Done():
			return false
		case <-t.C:
		}
	}
}

// openProfiles opens the profiled window on each running server that asks for profiles; a window
// that does not open is said, and the run goes on.
func (c *Controller) openProfiles(ctx context.Context, ins []*instance) {
	for _, in := range ins {
		if !wantsProfiles(in) || in.id == "" {
			continue
		}
		if err := in.client.StartProfiles(ctx, in.id); err != nil {
			c.progress(in.service, "profiles not recorded on %s: %v", in.url, err)
			continue
		}
		in.profiling = true
	}
}

// closeProfiles closes the windows as the load ends and downloads their profiles, each checked
// to be a profile (an agent's answer is not trusted), saved under Options.ProfileDir, and its
// coverage of the loads' measured run (from, to: on crank's clock) noted.
func (c *Controller) closeProfiles(ctx context.Context, ins []*instance, from, to time.Time) {
	var wg sync.WaitGroup
	for _, in := range ins {
		if in.profiling {
			in.profiling = false
			wg.Go(func() { c.closeProfile(ctx, in, from, to) })
		}
	}
	wg.Wait()
}

func (c *Controller) closeProfile(ctx context.Context, in *instance, from, to time.Time) {
	list, err := in.client.StopProfiles(ctx, in.id)
	if err != nil {
		c.progress(in.service, "profiles not recorded on %s: %v", in.url, err)
		return
	}
	if len(list) > len(knownProfile) {
		c.progress(in.service, "profiles not recorded on %s: it answered %d profiles, at most %d are recorded", in.url, len(list), len(knownProfile))
		return
	}
	iteration, _ := ctx.Value(iterationKey{}).(int)
	seen := map[string]bool{}
	for _, p := range list {
		if seen[p.Name] {
			continue
		}
		seen[p.Name] = true
		if !knownProfile[p.Name] {
			c.progress(in.service, "profile %q from %s: not a profile crank asked for, left out", p.Name, in.url)
			continue
		}
		rp := results.Profile{Name: p.Name, Iteration: iteration, Endpoint: in.url, Error: p.Error}
		if rp.Error == "" {
			rp = c.download(ctx, in, rp, from, to)
		}
		if rp.Error != "" {
			c.progress(in.service, "profile %s not recorded on %s: %s", p.Name, in.url, rp.Error)
		}
		in.profiles = append(in.profiles, rp)
	}
}

// coverage is the share of the loads' measured run (from, to: on crank's clock) that the profile
// covers, its window being on its agent's clock, offset (the agent's minus crank's) from crank's.
func coverage(p *profile.Profile, from, to time.Time, offset time.Duration) float64 {
	return profiles.Coverage(p, from.Add(offset), to.Add(offset))
}

// download reads one profile, keeps its top functions and its coverage of the loads' measured
// run, and writes it under Options.ProfileDir.
func (c *Controller) download(ctx context.Context, in *instance, rp results.Profile, from, to time.Time) results.Profile {
	b, err := in.client.Profile(ctx, in.id, rp.Name)
	if err != nil {
		rp.Error = err.Error()
		return rp
	}
	p, err := profiles.Parse(b)
	if err != nil {
		rp.Error = fmt.Sprintf("the agent's answer is not a profile: %v", err)
		return rp
	}
	rp.Data, rp.Unit, rp.Total, rp.Top = b, profiles.Unit(p), profiles.Total(p), profiles.Top(p, topFunctions)
	rp.Coverage = coverage(p, from, to, in.clockOffset)
	if site, ok := profiles.CallSite(p); ok && rp.Name == "go-mutex" {
		rp.Site = &site
	}
	if c.opts.ProfileDir == "" {
		return rp
	}
	name := in.service
	if in.rank > 1 {
		name = fmt.Sprintf("%s-%d", in.service, in.rank)
	}
	if rp.Iteration > 0 {
		name += fmt.Sprintf(".iteration-%d", rp.Iteration)
	}
	path := filepath.Join(c.opts.ProfileDir, fileName(name)+"."+fileName(rp.Name)+".pb.gz")
	if err := safewrite.Replace(path, b, safewrite.Output); err != nil {
		rp.Error = fmt.Sprintf("not saved: %v", err)
		return rp
	}
	rp.Path = path
	if c.opts.Wrote != nil {
		c.opts.Wrote(path)
	}
	return rp
}
