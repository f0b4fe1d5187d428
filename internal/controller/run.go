package controller

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/results"
)

// RunOnce runs the services once: the services that do not wait for exit (servers, databases)
// start first, in order, each ready before the next; then every load service starts at once and
// runs to completion; then everything is stopped, measured and deleted, even when ctx is cancelled.
func (c *Controller) RunOnce(ctx context.Context, services []Service) (map[string]*results.JobResult, error) {
	var all, servers, loads []*instance
	defer func() { c.cleanup(ctx, all) }()
	for _, s := range services {
		urls, err := c.endpoints(ctx, s)
		if err != nil {
			return nil, err
		}
		for _, u := range urls {
			cl, info, err := c.client(ctx, u)
			if err != nil {
				return nil, fmt.Errorf("service %q: %w", s.Name, err)
			}
			in := &instance{service: s.Name, url: u, client: cl, info: info, job: s.Job}
			all = append(all, in)
			if s.Job.WaitForExit {
				loads = append(loads, in)
			} else {
				servers = append(servers, in)
			}
		}
	}
	pk := &packs{}
	var ready []*instance
	for _, group := range groupByService(servers) {
		if err := c.launchAll(ctx, group, pk); err != nil {
			return nil, err
		}
		err := c.waitUntil(ctx, group, ready, func(in *instance) bool { return in.status.State == api.StateRunning })
		if err != nil {
			return nil, err
		}
		for _, in := range group {
			c.report(in, "ready")
		}
		ready = append(ready, group...)
	}
	loadStart := time.Now()
	if err := c.launchAll(ctx, loads, pk); err != nil {
		return nil, err
	}
	err := c.waitUntil(ctx, loads, ready, func(in *instance) bool { return in.status.State.Terminal() })
	if err != nil {
		return nil, err
	}
	loadEnd := time.Now()
	for _, in := range loads {
		c.report(in, "done")
	}
	if err := c.stopAll(ctx, ready); err != nil {
		return nil, err
	}
	if err := c.collect(ctx, all); err != nil {
		return nil, err
	}
	markOutsideLoad(servers, measuredStart(loads, loadStart), loadEnd)
	return assemble(services, all)
}

func groupByService(ins []*instance) [][]*instance {
	var out [][]*instance
	for i, in := range ins {
		if i > 0 && ins[i-1].service == in.service {
			out[len(out)-1] = append(out[len(out)-1], in)
			continue
		}
		out = append(out, []*instance{in})
	}
	return out
}

func (c *Controller) report(in *instance, what string) {
	if in.status.Skipped != "" {
		c.progress(in.service, "skipped on %s: %s", in.url, in.status.Skipped)
		return
	}
	c.progress(in.service, "%s on %s (%s)", what, in.url, time.Since(in.started).Round(time.Millisecond))
}

// launchAll launches the instances concurrently and returns the first error.
func (c *Controller) launchAll(ctx context.Context, ins []*instance, pk *packs) error {
	errs := make(chan error, len(ins))
	for _, in := range ins {
		go func() { errs <- c.launch(ctx, in, pk) }()
	}
	var all []error
	for range ins {
		if err := <-errs; err != nil {
			all = append(all, err)
		}
	}
	return errors.Join(all...)
}

func (c *Controller) stopAll(ctx context.Context, ins []*instance) error {
	for _, in := range ins {
		if in.status.Skipped != "" || in.status.State.Terminal() {
			continue
		}
		if err := in.client.Stop(ctx, in.id); err != nil {
			return fmt.Errorf("service %q: stopping job on %s: %w", in.service, in.url, err)
		}
	}
	sctx, cancel := context.WithTimeout(ctx, c.opts.StopTimeout)
	defer cancel()
	err := c.waitUntil(sctx, ins, nil, func(in *instance) bool { return in.status.State.Terminal() })
	if err != nil && errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("jobs did not stop within %s", c.opts.StopTimeout)
	}
	// A server that fails on stop (killed by the signal) still has its measurements.
	return nil
}

func (c *Controller) collect(ctx context.Context, ins []*instance) error {
	for _, in := range ins {
		if in.status.Skipped != "" {
			continue
		}
		m, err := in.client.Measurements(ctx, in.id)
		if err != nil {
			return fmt.Errorf("service %q: reading measurements from %s: %w", in.service, in.url, err)
		}
		in.measured = m
	}
	return nil
}

// cleanup deletes every job, even when ctx is cancelled.
func (c *Controller) cleanup(ctx context.Context, ins []*instance) {
	dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), c.opts.StopTimeout)
	defer cancel()
	for _, in := range ins {
		if in.id == "" {
			continue
		}
		if err := in.client.Delete(dctx, in.id); err != nil {
			c.log.Warn("deleting job", "service", in.service, "agent", in.url, "err", err)
		}
	}
}

// measuredStart is when the load's measured window began: the latest measured-run start any
// load agent reported, else the load start plus its warm-up.
func measuredStart(loads []*instance, loadStart time.Time) time.Time {
	start := loadStart
	for _, in := range loads {
		s := loadStart.Add(in.job.Warmup.Std())
		if in.status.MeasuredStart != nil {
			s = *in.status.MeasuredStart
		}
		if s.After(start) {
			start = s
		}
	}
	return start
}

// markOutsideLoad marks the servers' samples taken before the measured window as warm-up and
// drops those taken after the load ended (the servers idle while they are being stopped).
func markOutsideLoad(servers []*instance, from, to time.Time) {
	for _, in := range servers {
		kept := in.measured.Measurements[:0]
		for _, m := range in.measured.Measurements {
			if m.Timestamp.After(to) && !isOnce(m.Name) {
				continue
			}
			if m.Timestamp.Before(from) && !isOnce(m.Name) {
				m.Warmup = true
			}
			kept = append(kept, m)
		}
		in.measured.Measurements = kept
	}
}

// isOnce tells the measurements taken once per job rather than sampled.
func isOnce(name string) bool {
	return name == "benchmarks/build-time" || name == "benchmarks/start-time"
}

func assemble(services []Service, all []*instance) (map[string]*results.JobResult, error) {
	out := map[string]*results.JobResult{}
	for _, s := range services {
		jr := &results.JobResult{Variables: s.Job.Variables, Environment: map[string]any{}}
		var endpoints []string
		for _, in := range all {
			if in.service != s.Name || in.status.Skipped != "" {
				continue
			}
			jr.Metadata = results.MergeMetadata(jr.Metadata, in.measured.Metadata)
			jr.Measurements = append(jr.Measurements, in.measured.Measurements)
			endpoints = append(endpoints, in.url)
			if len(endpoints) == 1 {
				jr.Environment = environment(in)
			}
		}
		if len(endpoints) == 0 {
			continue
		}
		jr.Environment["endpoints"] = endpoints
		res, err := results.Summarize(jr.Metadata, jr.Measurements)
		if err != nil {
			return nil, fmt.Errorf("service %q: %w", s.Name, err)
		}
		jr.Results = res
		out[s.Name] = jr
	}
	return out, nil
}

func environment(in *instance) map[string]any {
	i := in.info
	env := map[string]any{
		"os": i.OS, "arch": i.Arch, "cores": i.Cores, "cpuModel": i.CPUModel, "memoryMB": i.MemoryMB,
		"agentVersion": i.Version, "hostname": i.Hostname, "kernel": i.KernelRelease, "goVersion": i.GoVersion,
	}
	if i.Hardware != "" {
		env["hardware"] = i.Hardware
	}
	if in.status.BuildReused {
		env["buildReused"] = true
	}
	return env
}
