package diagnose

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/crankshaft/crankshaft/internal/measure"
	"github.com/crankshaft/crankshaft/internal/results"
)

// job is what the diagnosis reads of one service.
type job struct {
	name    string
	load    bool // it reports requests: a load generator
	hasCPU  bool
	raw     float64 // mean CPU over the measured samples, % of one core
	global  float64 // mean machine CPU over the same samples, %
	cores   int     // of its machine; 0 when unknown
	machine string  // hostname or agent URL: jobs with the same one share cores
	threads int     // a load's threads variable; 0 when unknown
	cap     float64 // the CPU it can use, % of one core (set by newRun)
	capNote string  // what limits cap, for messages
	results map[string]float64
	vars    map[string]any
	// noCounters says why the job has no runtime counters (the controller's countersNotMeasured).
	noCounters string
}

// known reports whether the job's CPU and its machine's cores are known.
func (j *job) known() bool { return j.hasCPU && j.cores > 0 }

// saturated reports whether the job uses at least share of the CPU it can use.
func (j *job) saturated(share float64) bool {
	return j.known() && (j.cap <= 0 || j.raw >= share*j.cap)
}

// run is a result's jobs, sorted by service name, split into loads and servers.
type run struct {
	loads, servers []*job
}

func newRun(res *results.Result) run {
	var r run
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
	for _, j := range all {
		setCap(j, all)
	}
	return r
}

func readJob(name string, jr *results.JobResult) *job {
	j := &job{name: name, results: jr.Results, vars: jr.Variables}
	_, rps := jr.Results[measure.RPS]
	_, reqs := jr.Results[measure.Requests]
	j.load = rps || reqs
	var cpu float64
	j.raw, j.hasCPU = measuredMean(jr, measure.CPURaw)
	cpu, _ = measuredMean(jr, measure.CPU)
	j.global, _ = measuredMean(jr, measure.CPUGlobal)
	if n, ok := number(jr.Environment["cores"]); ok && n >= 1 {
		j.cores = int(n)
	} else if cpu > 0 {
		j.cores = int(math.Round(j.raw / cpu)) // benchmarks/cpu is cpu/raw over the cores
	}
	j.machine = machineOf(jr.Environment)
	j.noCounters, _ = jr.Environment["countersNotMeasured"].(string)
	if n, ok := number(jr.Variables["threads"]); ok && n >= 1 {
		j.threads = int(n)
	}
	return j
}

// measuredMean is the mean of the name's samples outside warm-up over every endpoint's timeline,
// or its summary value when the result has no samples of it.
func measuredMean(jr *results.JobResult, name string) (float64, bool) {
	var sum float64
	var n int
	for _, tl := range jr.Measurements {
		for _, m := range tl {
			if m.Name == name && !m.Warmup {
				sum += m.Value
				n++
			}
		}
	}
	if n > 0 {
		return sum / float64(n), true
	}
	v, ok := jr.Results[name]
	return v, ok
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

// setCap sets the CPU the job can use: its machine's cores less what the run's other jobs on
// that machine used, and for a load generator no more than its threads' cores.
func setCap(j *job, all []*job) {
	if j.cores == 0 {
		j.cap, j.capNote = 0, "cores unknown"
		return
	}
	j.cap = float64(j.cores) * 100
	j.capNote = plural(j.cores, "core")
	var taken []string
	for _, o := range all {
		if o != j && o.hasCPU && j.machine != "" && o.machine == j.machine {
			j.cap -= o.raw
			taken = append(taken, fmt.Sprintf("%.0f%% used by %s", o.raw, o.name))
		}
	}
	if len(taken) > 0 {
		j.capNote += ", " + strings.Join(taken, ", ")
	}
	if j.load && j.threads > 0 && float64(j.threads)*100 < j.cap {
		j.cap = float64(j.threads) * 100
		j.capNote = plural(j.threads, "thread")
	}
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}

// number reads a variable or environment value: JSON numbers, Go numbers, numeric strings.
func number(v any) (float64, bool) {
	switch x := v.(type) {
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	case float64:
		return x, true
	case string:
		f, err := strconv.ParseFloat(strings.TrimSpace(x), 64)
		return f, err == nil
	}
	return 0, false
}

// total adds a result over the jobs that have it.
func total(jobs []*job, name string) float64 {
	var s float64
	for _, j := range jobs {
		s += j.results[name]
	}
	return s
}
