package controller

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/netguard"
	"github.com/crankshaft/crankshaft/internal/pack"
	"github.com/crankshaft/crankshaft/internal/results"
	"github.com/crankshaft/crankshaft/internal/termtext"
)

// instance is one service's job on one agent.
type instance struct {
	service string
	url     string
	client  *api.Client
	info    api.Info
	// clockOffset is the agent's clock minus the controller's (see clockOffset).
	clockOffset time.Duration
	job         api.Job
	share       *Share // its part of a load split across endpoints; nil when not split
	id          string
	started     time.Time
	status      api.JobStatus
	lastOK      time.Time
	silent      bool // the last status read failed
	measured    api.Measurements
	shown       int64 // bytes of output already displayed (options.displayOutput/displayBuild)
	rank        int   // the endpoint's rank in its service, from 1
	profiling   bool  // its profiled window is open (profiles.go)
	profiles    []results.Profile
}

func (in *instance) String() string { return fmt.Sprintf("%s on %s", in.service, in.url) }

// packs caches packed source folders (and build files) for one run.
type packs struct {
	mu      sync.Mutex
	m       map[string]*pack.Packed
	digests map[string]*digested
}

// buildFiles packs a job's build files once per run (by their list).
func (p *packs) buildFiles(ctx context.Context, entries []string) (*pack.Packed, error) {
	key := "\x00buildFiles\x00" + strings.Join(entries, "\x00")
	p.mu.Lock()
	defer p.mu.Unlock()
	if pk, ok := p.m[key]; ok {
		return pk, nil
	}
	pk, err := pack.PackBuildFiles(ctx, entries, netguard.Client(0))
	if err != nil {
		return nil, err
	}
	if p.m == nil {
		p.m = map[string]*pack.Packed{}
	}
	p.m[key] = pk
	return pk, nil
}

func (p *packs) get(dir string, ex pack.Exclude) (*pack.Packed, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if pk, ok := p.m[dir]; ok {
		return pk, nil
	}
	pk, err := pack.Pack(dir, ex)
	if err != nil {
		return nil, err
	}
	if p.m == nil {
		p.m = map[string]*pack.Packed{}
	}
	p.m[dir] = pk
	return pk, nil
}

// upload is one packed source to send: the job's own (name "") or a named one.
type upload struct {
	name, folder string
	packed       *pack.Packed
}

// packSources packs the job's local folders (its own source's and its named sources'), less the
// result files ex names, and sets their hashes in job.
func packSources(job *api.Job, pk *packs, ex pack.Exclude) ([]upload, error) {
	var ups []upload
	if job.Source != nil && job.Source.LocalFolder != "" {
		packed, err := pk.get(job.Source.LocalFolder, ex)
		if err != nil {
			return nil, err
		}
		src := *job.Source
		src.Hash = packed.Hash
		job.Source = &src
		ups = append(ups, upload{"", src.LocalFolder, packed})
	}
	named := slices.Clone(job.Sources)
	for i, s := range named {
		if s.LocalFolder == "" {
			continue
		}
		packed, err := pk.get(s.LocalFolder, ex)
		if err != nil {
			return nil, fmt.Errorf("sources.%s: %w", s.Name, err)
		}
		named[i].Hash = packed.Hash
		ups = append(ups, upload{s.Name, s.LocalFolder, packed})
	}
	job.Sources = named
	return ups, nil
}

// launch submits the job, uploads its sources (or has the agent take them from its build
// cache) and starts it. It does not wait for readiness.
func (c *Controller) launch(ctx context.Context, in *instance, pk *packs) error {
	job := in.job
	began := time.Now()
	ups, reuse, err := c.prepareSources(ctx, &job, in, pk)
	if err != nil {
		return fmt.Errorf("service %q: %w", in.service, err)
	}
	c.took("sources packed", began, "service", in.service, "hashedOnly", reuse != nil)
	var files *pack.Packed
	if len(job.BuildFiles) > 0 {
		if files, err = pk.buildFiles(ctx, job.BuildFiles); err != nil {
			return fmt.Errorf("service %q: %w", in.service, err)
		}
	}
	id, err := in.client.Submit(ctx, job)
	if err != nil {
		return fmt.Errorf("service %q: submitting job %q to %s: %w", in.service, job.Name, in.url, err)
	}
	in.id = id
	in.lastOK = time.Now()
	c.took("job submitted", began, "service", in.service)
	if st, err := in.client.Status(ctx, id); err == nil {
		in.status = st // the state the first wait for a change starts from
		if st.Skipped != "" {
			return nil
		}
	}
	if reuse != nil {
		if ups, err = c.reuseOrPack(ctx, in, &job, pk, reuse); err != nil {
			return err
		}
	}
	if err := c.upload(ctx, in, ups, files); err != nil {
		return err
	}
	c.took("sources uploaded", began, "service", in.service)
	c.step(in.service, "starting job %q on %s", job.Name, in.url)
	in.started = time.Now()
	if err := in.client.Start(ctx, id); err != nil {
		return fmt.Errorf("service %q: starting job on %s: %w", in.service, in.url, err)
	}
	return nil
}

// upload sends the job's packed sources and build files.
func (c *Controller) upload(ctx context.Context, in *instance, ups []upload, files *pack.Packed) error {
	for _, up := range ups {
		what := "source"
		if up.name != "" {
			what = "sources." + up.name
		}
		c.step(in.service, "uploading %s %s (%d files, %d KB) to %s", what, up.folder, up.packed.Files, len(up.packed.TarGz)/1024, in.url)
		if err := in.client.UploadSource(ctx, in.id, up.name, bytes.NewReader(up.packed.TarGz)); err != nil {
			return fmt.Errorf("service %q: uploading %s to %s: %w", in.service, what, in.url, err)
		}
	}
	if files != nil {
		c.step(in.service, "uploading buildFiles (%d files, %d KB) to %s", files.Files, len(files.TarGz)/1024, in.url)
		if err := in.client.UploadBuildFiles(ctx, in.id, bytes.NewReader(files.TarGz)); err != nil {
			return fmt.Errorf("service %q: uploading buildFiles to %s: %w", in.service, in.url, err)
		}
	}
	return nil
}

// silentDeleteTimeout bounds the deletion of a job whose agent stopped answering.
const silentDeleteTimeout = 2 * time.Second

// minPollTimeout is the least time a poll is given, even when its agent's silence is nearly up.
const minPollTimeout = time.Second

// pollTimeout bounds a poll of an agent silent for silent: half its allowed silence, and no
// further than the silence's end (at least minPollTimeout), so that a run whose agent's packets
// are dropped fails about when the silence ends, not a poll timeout or more later (each poll of
// its instances, one after another, would otherwise wait its own half of the silence).
func pollTimeout(silence, silent time.Duration) time.Duration {
	return max(min(silence/2, silence-silent), minPollTimeout)
}

// pollWait reads the instance's status (renewing its lease), waiting up to wait for the job's
// state to change from the one last read (an agent without Info.StatusWait, or a wait of 0,
// answers at once). A failure is an error only once the agent has not answered for AgentSilence.
func (c *Controller) pollWait(ctx context.Context, in *instance, wait time.Duration) error {
	silence := c.silenceOf(in)
	pctx, cancel := context.WithTimeout(ctx, pollTimeout(silence, time.Since(in.lastOK)))
	defer cancel()
	var st api.JobStatus
	var err error
	if wait > 0 && in.info.StatusWait && in.status.State != "" {
		st, err = in.client.StatusChange(pctx, in.id, in.status.State, min(wait, silence/4))
	} else {
		st, err = in.client.Status(pctx, in.id)
	}
	in.silent = err != nil
	if err == nil {
		in.status, in.lastOK = st, time.Now()
		return nil
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if silent := time.Since(in.lastOK); silent >= silence {
		return lost(in, fmt.Errorf("service %q: agent %s has not answered for %s: %w", in.service, in.url, silent.Round(100*time.Millisecond), err))
	}
	return nil
}

// failure describes a Failed job, with the end of its output when the agent's error lacks it.
func (c *Controller) failure(ctx context.Context, in *instance) error {
	msg := termtext.Clean(in.status.Error)
	if msg == "" {
		msg = "no error given"
	}
	if !strings.Contains(msg, "last output") {
		out, _ := in.client.Output(context.WithoutCancel(ctx), in.id, 0)
		msg += "; last output:\n" + lastLines(out, 20)
	}
	cmd := "command: " + CommandLine(in.job)
	if in.job.BuildCommand != "" && in.status.BuildLogBytes == 0 {
		cmd = "build command: " + in.job.BuildCommand + "\n" + cmd
	}
	if hint := portInUseHint(in.job, msg); hint != "" {
		cmd += "\n" + hint
	}
	return fmt.Errorf("service %q: job %q failed on %s: %s\n%s", in.service, in.job.Name, in.url, strings.TrimRight(msg, "\n"), cmd)
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	for i, l := range lines {
		lines[i] = termtext.Clean(l) // a job's output, printed in crank's error
	}
	return strings.Join(lines, "\n")
}

// waitUntil polls the instances until each satisfies done or fails; it also watches others
// (their leases are renewed and a failure among them ends the wait).
func (c *Controller) waitUntil(ctx context.Context, targets, others []*instance, done func(*instance) bool) error {
	t := time.NewTicker(c.opts.PollInterval)
	defer t.Stop()
	lv := c.newLive()
	for {
		pending := 0
		waiter := c.waiter(targets, done)
		var before api.JobState
		if waiter != nil {
			before = waiter.status.State
		}
		for _, in := range append(append([]*instance{}, targets...), others...) {
			wait := time.Duration(0)
			if in == waiter {
				wait = c.opts.PollInterval
			}
			if err := c.pollWait(ctx, in, wait); err != nil {
				return err
			}
		}
		c.follow(ctx, targets, others)
		for _, in := range others {
			if in.status.State == api.StateFailed || in.status.State == api.StateStopped {
				if in.status.State == api.StateFailed {
					return c.failure(ctx, in)
				}
				return fmt.Errorf("service %q: job on %s stopped during the run (exit code %s)", in.service, in.url, exitCode(in.status))
			}
		}
		for _, in := range targets {
			switch {
			case in.status.Skipped != "":
			case in.status.State == api.StateFailed:
				return lost(in, c.failure(ctx, in))
			case !done(in):
				pending++
			}
		}
		if pending == 0 {
			lv.end()
			return nil
		}
		lv.show(ctx, targets, others, done)
		if waiter != nil && !waiter.silent && waiter.status.State != before {
			// its read ended at a change: read again at once. Rounds without a change wait for
			// the tick, which a read that waited the whole interval has already let pass.
			if ctx.Err() != nil {
				return ctx.Err()
			}
			continue
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
}

// waiter is the target whose status read waits for its state's next change (one per round of
// reads, so the others are read as often as before): the first one not done whose agent can wait
// and whose state was read; nil when none, and the round waits for the poll's tick.
func (c *Controller) waiter(targets []*instance, done func(*instance) bool) *instance {
	for _, in := range targets {
		if in.info.StatusWait && in.status.State != "" && in.status.Skipped == "" && !in.status.State.Terminal() && !done(in) {
			return in
		}
	}
	return nil
}

func exitCode(s api.JobStatus) string {
	if s.ExitCode == nil {
		return "unknown"
	}
	return fmt.Sprint(*s.ExitCode)
}
