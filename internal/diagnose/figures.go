package diagnose

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/measure"
	"github.com/crankshaft/crankshaft/internal/results"
)

// minOutside is the share of a machine used outside the run from which it is taken off what the
// run's jobs can use (below it, sampling noise).
const minOutside = 0.05

// maxThread is the most CPU (% of one core) one thread's mean can read: a core, and the 10 ms ticks
// of a sample's interval rounding up. An agent's figure beyond it is not judged on.
const maxThread = 110

// job is what the diagnosis reads of one service. CPU is counted in cores (1.5: one and a half
// cores busy), from the mean of benchmarks/cpu (% of the whole machine) over the measured samples.
type job struct {
	name    string
	load    bool // it reports requests: a load generator
	hasCPU  bool
	cpu     float64 // mean of benchmarks/cpu over the measured samples, % of the machine
	used    float64 // cores busy: cpu x cores / 100
	global  float64 // mean machine CPU over the same samples, %
	steal   float64 // mean machine steal over the same samples, %
	cores   int     // of its machine; 0 when unknown
	machine string  // hostname or agent URL: jobs with the same one share cores
	threads int     // a load's threads variable; 0 when unknown
	cpuSet  int     // cores of its cpuSet (environment cpuSetCores); 0 when not pinned
	cpus    []int   // the CPUs of its cpuSet (environment cpuSet); nil when not pinned or unknown
	cap     float64 // the cores it can use (set by newRun)
	left    float64 // the share of each core its host leaves it: 1 less the steal from StealShare (set by setCap)
	capNote string  // what limits cap, for messages
	results map[string]float64
	vars    map[string]any
	// timelines are its samples, one timeline per agent it ran on.
	timelines [][]api.Measurement
	// parts are what it used on each agent (one for a job on one agent; set by readJob).
	parts []part
	// noCounters says why the job has no runtime counters (the controller's countersNotMeasured).
	noCounters string
	// lockSite is where its Go mutex profile says most of the lock wait was ("" without one).
	lockSite string
	// hot is where its CPU profile says it spent the most CPU ("" without one).
	hot string
	// thread is the mean of benchmarks/cpu/busiest-thread (% of one core), when hasThread.
	thread    float64
	hasThread bool
}

// known reports whether the job's CPU and its machine's cores are known.
func (j *job) known() bool { return j.hasCPU && j.cores > 0 }

// saturated reports whether the job uses at least share of the cores it can use.
func (j *job) saturated(share float64) bool {
	return j.known() && (j.cap <= 0 || j.used >= share*j.cap)
}

// threadsBusy reports whether a load generator's threads are busy (when its threads are known).
// A thread can use no more of a core than its host leaves it (left).
// A load split over several agents is busy when one of its generators is.
func (j *job) threadsBusy(share float64) bool {
	for _, p := range j.parts {
		if j.threads > 0 && p.used >= share*float64(j.threads)*j.left {
			return true
		}
	}
	return false
}

// run is a result's jobs, sorted by service name, split into loads and servers, and the
// machines they ran on.
type run struct {
	loads, servers []*job
	machines       []*machine // in order of first appearance
	catalog        measure.Catalog
}

// machine is what the run's jobs tell of one machine.
type machine struct {
	key    string
	cores  int
	global float64 // the machine's mean busy share over the jobs' samples, %
	steal  float64 // the machine's mean steal share (its hypervisor's other guests), %
	own    float64 // cores used by the run's jobs there
	jobs   []*job
}

// outside is the cores used on the machine beyond the run's jobs (0 when unknown).
func (m *machine) outside() float64 {
	if m == nil || m.global <= 0 {
		return 0
	}
	return max(0, m.global/100*float64(m.cores)-m.own)
}

// busy is the machine's busy share, %: cpu/global, else what the run's jobs used.
func (m *machine) busy() float64 {
	if m.global > 0 {
		return m.global
	}
	return 100 * m.own / float64(m.cores)
}

func newRun(res *results.Result, th Thresholds) run {
	r := run{catalog: measure.Default()}
	names := make([]string, 0, len(res.JobResults.Jobs))
	for n := range res.JobResults.Jobs {
		names = append(names, n)
	}
	slices.Sort(names)
	var all []*job
	for _, n := range names {
		jr := res.JobResults.Jobs[n]
		if jr == nil {
			continue
		}
		j := readJob(n, jr)
		all = append(all, j)
		if j.load {
			r.loads = append(r.loads, j)
		} else {
			r.servers = append(r.servers, j)
		}
	}
	r.machines = machines(all)
	for _, j := range all {
		setCap(j, all, r.machineOf(j), th)
	}
	return r
}

func (r run) machineOf(j *job) *machine {
	for _, m := range r.machines {
		if m.key == j.machine {
			return m
		}
	}
	return nil
}

func readJob(name string, jr *results.JobResult) *job {
	j := &job{name: name, results: jr.Results, vars: jr.Variables, left: 1, timelines: jr.Measurements}
	_, rps := jr.Results[measure.RPS]
	_, reqs := jr.Results[measure.Requests]
	j.load = rps || reqs
	j.cpu, j.cores, j.hasCPU = results.MachineCPU(jr)
	j.global, _ = measuredMean(jr, measure.CPUGlobal)
	j.steal, _ = measuredMean(jr, measure.CPUSteal)
	j.thread, j.hasThread = measuredMean(jr, measure.CPUThread)
	if !(j.thread >= 0 && j.thread <= maxThread) { // no thread uses more than a core: not a figure to judge on
		j.thread, j.hasThread = 0, false
	}
	j.used = j.cpu / 100 * float64(j.cores)
	j.machine = machineOf(jr.Environment)
	if n, ok := number(jr.Environment["cpuSetCores"]); ok && n >= 1 {
		j.cpuSet = int(n)
		if set, ok := jr.Environment["cpuSet"].(string); ok {
			j.cpus, _ = api.ParseCPUSet(set)
		}
	}
	j.noCounters, _ = jr.Environment["countersNotMeasured"].(string)
	j.lockSite = results.LockSite(jr.Profiles)
	j.hot = results.HotFunction(jr.Profiles)
	readParts(j, jr)
	if n, ok := number(jr.Variables["threads"]); ok && n >= 1 {
		j.threads = int(n)
	}
	return j
}

// measuredMean is the mean of the name's measured samples over every endpoint's timeline, or its
// summary value when the result has no samples of it.
func measuredMean(jr *results.JobResult, name string) (float64, bool) {
	return results.MeasuredMean(jr, name)
}

// machineOf names the machine a job ran on: the agent's hostname, else its first endpoint.
func machineOf(env map[string]any) string {
	if h, ok := env["hostname"].(string); ok && h != "" {
		return "host:" + h
	}
	switch eps := env["endpoints"].(type) {
	case []string:
		if len(eps) > 0 {
			return "url:" + eps[0]
		}
	case []any:
		if len(eps) > 0 {
			return fmt.Sprint("url:", eps[0])
		}
	}
	return ""
}

// setCap sets the cores the job can use: its machine's cores less what the run's other jobs used
// there, less the work outside the run when it is noticeable (minOutside) but the machine is not
// busy (on a busy machine every job would look saturated with what the others left it), for a
// load generator no more than its threads, and for a job pinned to a cpuSet no more than its cores.
func setCap(j *job, all []*job, m *machine, th Thresholds) {
	if len(j.parts) > 1 {
		splitCap(j, all, m, th)
		return
	}
	if j.cores == 0 {
		j.cap, j.capNote = 0, "cores unknown"
		return
	}
	j.cap = float64(j.cores)
	j.capNote = plural(j.cores, "core")
	var taken []string
	for _, o := range all {
		if used := o.usedOn(j.machine); o.name != j.name && o.hasCPU && j.machine != "" && used > 0 {
			j.cap -= used
			if used >= 0.05 {
				taken = append(taken, fmt.Sprintf("%.1f used by %s", used, o.name))
			}
		}
	}
	if out, capacity := m.outside(), float64(j.cores); out >= minOutside*capacity && out < th.OtherShare*capacity {
		j.cap -= out
		taken = append(taken, fmt.Sprintf("%.1f used outside the run", out))
	}
	if len(taken) > 0 {
		j.capNote += " less " + strings.Join(taken, " and ")
	}
	j.cap = max(j.cap, 0)
	// A load's threads and a cpuSet's cores lose to the host what it steals of every core: a
	// saturated thread on a host stealing 13 % is busy 87 % of the time (the machine's own cap
	// already left out the steal, with the other work outside the run).
	stolen := ""
	if m != nil && th.stolen(m.steal) {
		j.left = 1 - m.steal/100
		stolen = " less " + results.Value(measure.CPUSteal, m.steal) + " stolen by the host"
	}
	if j.load && j.threads > 0 && float64(j.threads)*j.left < j.cap {
		j.cap = float64(j.threads) * j.left
		j.capNote = plural(j.threads, "thread") + stolen
	}
	if j.cpuSet > 0 && float64(j.cpuSet)*j.left < j.cap {
		j.cap = float64(j.cpuSet) * j.left
		j.capNote = plural(j.cpuSet, "core") + " of its cpuSet" + stolen
	}
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}

// number reads a variable or environment value as a number.
func number(v any) (float64, bool) { return api.Number(v) }

// total adds a result over the jobs that have it.
func total(jobs []*job, name string) float64 {
	var s float64
	for _, j := range jobs {
		s += j.results[name]
	}
	return s
}
