package diagnose

import (
	"fmt"
	"slices"
	"strings"

	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/measure"
	"github.com/crankshaft/crankshaft/internal/results"
)

// part is what a job used on one of the agents it ran on: a load split over three agents has
// three (docs/DISTRIBUTED.md), a job on one agent one.
type part struct {
	machine string
	cores   int
	cpu     float64 // mean benchmarks/cpu of its timeline, % of its machine
	used    float64 // cores
	global  float64 // its machine's mean busy share, %
	steal   float64
	m       *machine // set by machines
}

// readParts sets the job's parts and, for a job on several agents, its CPU as theirs added (the
// cores the whole job used, as CPU per request counts it: results.TotalMeasuredMean).
func readParts(j *job, jr *results.JobResult) {
	agents := agentsOf(jr.Environment)
	if len(jr.Measurements) < 2 || len(agents) != len(jr.Measurements) {
		if j.hasCPU {
			j.parts = []part{{machine: j.machine, cores: j.cores, cpu: j.cpu, used: j.used, global: j.global, steal: j.steal}}
		}
		return
	}
	var used float64
	for i, tl := range jr.Measurements {
		cpu, ok := timelineMean(tl, measure.CPU)
		if !ok {
			continue
		}
		p := part{machine: machineOf(agents[i]), cores: j.cores, cpu: cpu}
		if n, ok := number(agents[i]["cores"]); ok && n >= 1 {
			p.cores = int(n)
		}
		p.used = cpu / 100 * float64(p.cores)
		p.global, _ = timelineMean(tl, measure.CPUGlobal)
		p.steal, _ = timelineMean(tl, measure.CPUSteal)
		used += p.used
		j.parts = append(j.parts, p)
	}
	if len(j.parts) > 1 {
		j.used = used
	}
}

// agentsOf is the environment's agents (one map per endpoint), as the controller writes them or
// as JSON gives them back.
func agentsOf(env map[string]any) []map[string]any {
	switch as := env["agents"].(type) {
	case []map[string]any:
		return as
	case []any:
		out := make([]map[string]any, 0, len(as))
		for _, a := range as {
			m, ok := a.(map[string]any)
			if !ok {
				return nil
			}
			out = append(out, m)
		}
		return out
	}
	return nil
}

// timelineMean is the mean of name's measured samples in one timeline.
func timelineMean(tl []api.Measurement, name string) (float64, bool) {
	var sum float64
	var n int
	for _, m := range tl {
		if m.Name == name && m.Measured() {
			sum += m.Value
			n++
		}
	}
	if n == 0 {
		return 0, false
	}
	return sum / float64(n), true
}

// usedOn is the cores the job used on the machine key.
func (j *job) usedOn(key string) float64 {
	var s float64
	for _, p := range j.parts {
		if p.machine == key {
			s += p.used
		}
	}
	return s
}

// split tells whether the job ran on several agents.
func (j *job) split() bool { return len(j.parts) > 1 }

// machines groups the jobs' parts whose CPU and machine are known by machine.
func machines(all []*job) []*machine {
	var out []*machine
	seen := map[string]*machine{}
	for _, j := range all {
		if !j.known() {
			continue
		}
		for i, p := range j.parts {
			if p.machine == "" || p.cores <= 0 {
				continue
			}
			m, ok := seen[p.machine]
			if !ok {
				m = &machine{key: p.machine, cores: p.cores}
				seen[p.machine] = m
				out = append(out, m)
			}
			m.global = max(m.global, p.global)
			m.steal = max(m.steal, p.steal)
			m.own += p.used
			if !slices.Contains(m.jobs, j) {
				m.jobs = append(m.jobs, j)
			}
			j.parts[i].m = m
		}
	}
	return out
}

// splitCap sets what a job on several agents can use: each part's cap (setCap on it alone)
// added.
func splitCap(j *job, all []*job, _ *machine, th Thresholds) {
	j.cap, j.left = 0, 1
	notes := make([]string, 0, len(j.parts))
	for _, p := range j.parts {
		one := *j
		one.parts = []part{p}
		one.machine, one.cores, one.cpu, one.used, one.global, one.steal = p.machine, p.cores, p.cpu, p.used, p.global, p.steal
		setCap(&one, all, p.m, th)
		j.cap += one.cap
		j.left = min(j.left, one.left)
		notes = append(notes, fmt.Sprintf("%.1f on %s (%s)", one.cap, strings.TrimPrefix(strings.TrimPrefix(p.machine, "host:"), "url:"), one.capNote))
	}
	j.capNote = fmt.Sprintf("%d agents: %s", len(j.parts), strings.Join(notes, ", "))
}
