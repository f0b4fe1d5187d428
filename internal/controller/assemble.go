package controller

import (
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/measure"
	"github.com/crankshaft/crankshaft/internal/results"
)

// assemble builds each service's result from its instances: one timeline per endpoint that ran
// it, summarized by the metadata (aggregate per endpoint, then reduce across endpoints). The
// environment is the first endpoint's machine, plus the list of endpoints; with several
// endpoints, each one's machine is under "agents". Endpoints that skipped the job are listed
// under "skipped" with the agent's reason; a service every endpoint skipped has no results.
func assemble(services []Service, all []*instance) (map[string]*results.JobResult, error) {
	out := map[string]*results.JobResult{}
	for _, s := range services {
		jr := &results.JobResult{Variables: s.Job.Variables, Environment: map[string]any{},
			Results: map[string]float64{}, Metadata: []api.Metadata{}, Measurements: [][]api.Measurement{}}
		endpoints, agents, skipped := []string{}, []map[string]any{}, map[string]string{}
		var warnings []string
		var ran []*instance // the endpoints that ran it
		notMeasured := ""   // why the runtime counters are missing
		for _, in := range all {
			if in.service != s.Name {
				continue
			}
			if in.status.Skipped != "" {
				skipped[in.url] = in.status.Skipped
				continue
			}
			ran = append(ran, in)
			jr.Profiles = append(jr.Profiles, in.profiles...)
			jr.Metadata = results.MergeMetadata(jr.Metadata, in.measured.Metadata)
			jr.Measurements = append(jr.Measurements, in.measured.Measurements)
			for name, why := range in.measured.NotMeasured {
				if jr.NotMeasured == nil {
					jr.NotMeasured = map[string]string{}
				}
				jr.NotMeasured[name] = why
			}
			endpoints = append(endpoints, in.url)
			env := environment(in)
			if len(endpoints) == 1 {
				jr.Environment = maps.Clone(env)
			}
			env["endpoint"] = in.url
			agents = append(agents, env)
			if len(in.status.Warnings) > 0 {
				warnings = append(warnings, in.status.Warnings...)
			}
			if why := countersMissing(in); why != "" && notMeasured == "" {
				notMeasured = why
			}
		}
		if len(endpoints) == 0 && len(skipped) == 0 {
			continue
		}
		sortByCatalog(jr.Metadata)
		jr.Environment["endpoints"] = endpoints
		if len(agents) > 1 {
			jr.Environment["agents"] = agents
		}
		if len(skipped) > 0 {
			jr.Environment["skipped"] = skipped
		}
		if len(warnings) > 0 {
			jr.Environment["warnings"] = warnings
		}
		if notMeasured != "" {
			jr.Environment["countersNotMeasured"] = notMeasured
		}
		res, err := results.Summarize(jr.Metadata, jr.Measurements)
		if err != nil {
			return nil, fmt.Errorf("service %q: %w", s.Name, err)
		}
		jr.Results = res
		if s.Job.WaitForExit && len(ran) > 1 {
			if err := generators(jr, ran); err != nil {
				if ip := (*ImplausiblePart)(nil); errors.As(err, &ip) {
					return nil, err // it names the service
				}
				return nil, fmt.Errorf("service %q: %w", s.Name, err)
			}
		}
		if s.Job.WaitForExit {
			withLoadTool(jr, s.Job)
		}
		out[s.Name] = jr
	}
	return out, nil
}

// sortByCatalog orders metadata as the catalog declares it (so tables read the same on every
// run), with names the catalog does not know after, in their own order.
func sortByCatalog(md []api.Metadata) {
	rank := map[string]int{}
	for i, m := range measure.List() {
		rank[m.Name] = i
	}
	pos := func(name string) int {
		if r, ok := rank[name]; ok {
			return r
		}
		return len(rank)
	}
	slices.SortStableFunc(md, func(a, b api.Metadata) int { return pos(a.Name) - pos(b.Name) })
}

func environment(in *instance) map[string]any {
	i := in.info
	env := map[string]any{
		"os": i.OS, "arch": i.Arch, "cores": i.Cores, "cpuModel": i.CPUModel, "memoryMB": i.MemoryMB,
		"agentVersion": i.Version, "hostname": i.Hostname, "kernel": i.KernelRelease, "goVersion": i.GoVersion,
		"job": in.job.Name,
		// crank's keys: proc (cores), hw (the machine's label), env (crank's environment label)
		"proc": i.Cores, "hw": "Unspecified", "env": "Unspecified",
	}
	if i.Hardware != "" {
		env["hardware"] = i.Hardware
		env["hw"] = i.Hardware
	}
	if in.job.CpuSet != "" {
		env["cpuSet"] = in.job.CpuSet
		if cpus, err := api.ParseCPUSet(in.job.CpuSet); err == nil {
			env["cpuSetCores"] = len(cpus)
		}
	}
	if in.status.BuildReused {
		env["buildReused"] = true
	}
	if in.clockOffset != 0 {
		env["clockOffsetMs"] = float64(in.clockOffset.Microseconds()) / 1000
	}
	return env
}
