package diagnose

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/measure"
	"github.com/crankshaft/crankshaft/internal/results"
)

// fakeJob describes one service of a synthetic result.
type fakeJob struct {
	raw     []float64 // measured cpu/raw samples
	warm    []float64 // warm-up cpu/raw samples (must not count)
	global  float64   // machine CPU in every sample
	cores   int       // 0: no "cores" in the environment
	cpuSet  int       // cores of the job's cpuSet; 0: not pinned
	host    string
	vars    map[string]any
	results map[string]float64
}

func (f fakeJob) result() *results.JobResult {
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var tl []api.Measurement
	add := func(name string, v float64, warm bool) {
		tl = append(tl, api.Measurement{Name: name, Timestamp: at, Value: v, Warmup: warm})
		at = at.Add(time.Second)
	}
	cores := max(f.cores, 1)
	for i, vals := range [][]float64{f.warm, f.raw} {
		for _, v := range vals {
			add(measure.CPURaw, v, i == 0)
			add(measure.CPU, v/float64(cores), i == 0)
			add(measure.CPUGlobal, f.global, i == 0)
		}
	}
	env := map[string]any{"hostname": f.host, "endpoints": []any{"http://127.0.0.1:5010"}}
	if f.cores > 0 {
		env["cores"] = float64(f.cores) // as JSON gives it back
	}
	if f.cpuSet > 0 {
		env["cpuSetCores"] = float64(f.cpuSet)
	}
	res := map[string]float64{}
	for k, v := range f.results {
		res[k] = v
	}
	return &results.JobResult{Results: res, Measurements: [][]api.Measurement{tl}, Environment: env, Variables: f.vars}
}

func runOf(jobs map[string]fakeJob) *results.Result {
	r := &results.Result{JobResults: results.JobResults{Jobs: map[string]*results.JobResult{}}}
	for name, j := range jobs {
		r.JobResults.Jobs[name] = j.result()
	}
	return r
}

// wrk is a load job's results: 1M requests, with the given failures.
func wrk(bad, errs float64) map[string]float64 {
	return map[string]float64{measure.RPS: 100000, measure.Requests: 1000000, measure.BadResponses: bad, measure.Errors: errs}
}

func wrkVars(threads, conns, pipeline int) map[string]any {
	return map[string]any{"threads": threads, "connections": conns, "pipeline": pipeline}
}

func check(t *testing.T, jobs map[string]fakeJob, want ...results.Diagnostic) {
	t.Helper()
	got := Diagnose(runOf(jobs), DefaultThresholds())
	if !reflect.DeepEqual(got, want) && !(len(got) == 0 && len(want) == 0) {
		t.Errorf("got:\n%s\nwant:\n%s", show(got), show(want))
	}
}

func show(ds []results.Diagnostic) string {
	s := ""
	for _, d := range ds {
		s += "  " + d.Kind + ": " + d.Message + "\n"
	}
	return s
}

// Separate 8-core machines for the server and the load, unless a test says otherwise.
func TestClientBound(t *testing.T) {
	check(t, map[string]fakeJob{
		"application": {raw: []float64{300, 320}, warm: []float64{790}, global: 40, cores: 8, host: "srv"},
		"load":        {raw: []float64{396, 392}, global: 50, cores: 8, host: "cli", vars: wrkVars(4, 256, 1), results: wrk(0, 0)},
	}, results.Diagnostic{Kind: ClientBound, Message: "load: the load generator's CPU is saturated (394% of the 400% it can use (% of one core): 4 threads) " +
		"while application uses 310% of 800% (% of one core): the load generator limits the run; give it more threads or a machine of its own"})
}

// On one 2-core machine the load's share is what the server leaves it.
func TestClientBoundSharedMachine(t *testing.T) {
	check(t, map[string]fakeJob{
		"application": {raw: []float64{90, 94}, global: 100, cores: 2, host: "box"},
		"load":        {raw: []float64{104, 100}, global: 100, cores: 2, host: "box", results: wrk(0, 0)},
	},
		results.Diagnostic{Kind: ClientBound, Message: "load: the load generator's CPU is saturated (102% of the 108% it can use (% of one core): " +
			"2 cores, 92% used by application) while application uses 92% of 98% (% of one core): the load generator limits the run; give it more threads or a machine of its own"},
		results.Diagnostic{Kind: ServerBound, Message: "application: the server's CPU is saturated (92% of the 98% it can use (% of one core): " +
			"2 cores, 102% used by load): the server limits the run"})
}

// A server pinned to 2 of 8 cores is saturated at 200%.
func TestServerBoundOnItsCPUSet(t *testing.T) {
	check(t, map[string]fakeJob{
		"application": {raw: []float64{196, 194}, global: 30, cores: 8, cpuSet: 2, host: "srv"},
		"load":        {raw: []float64{150}, global: 20, cores: 8, host: "cli", vars: wrkVars(8, 256, 1), results: wrk(0, 0)},
	}, results.Diagnostic{Kind: ServerBound, Message: "application: the server's CPU is saturated (195% of the 200% it can use (% of one core): 2 cores of its cpuSet): the server limits the run"})
}

func TestServerBound(t *testing.T) {
	check(t, map[string]fakeJob{
		"application": {raw: []float64{770, 780}, global: 97, cores: 8, host: "srv"},
		"load":        {raw: []float64{150}, global: 20, cores: 8, host: "cli", vars: wrkVars(8, 256, 1), results: wrk(0, 0)},
	}, results.Diagnostic{Kind: ServerBound, Message: "application: the server's CPU is saturated (775% of the 800% it can use (% of one core): 8 cores): the server limits the run"})
}

// The gRPC story: throughput flat, server CPU low, the load idle, the server's goroutines queued on a lock.
func TestContentionBound(t *testing.T) {
	check(t, map[string]fakeJob{
		"application": {raw: []float64{110, 114}, global: 15, cores: 8, host: "srv",
			results: map[string]float64{measure.LockContention: 2400}},
		"load": {raw: []float64{120}, global: 16, cores: 8, host: "cli", vars: wrkVars(8, 256, 1), results: wrk(0, 0)},
	}, results.Diagnostic{Kind: ContentionBound, Message: "application waits 2400 ms/s on locks (runtime-counter/lock-contention, 1120 ms of CPU per s) " +
		"while its CPU is not saturated (112% of 800% (% of one core)) and neither is load's (120% of 800% (% of one core)): lock contention limits the run"})
}

func TestContentionBoundMonitor(t *testing.T) {
	check(t, map[string]fakeJob{
		"application": {raw: []float64{100}, global: 15, cores: 8, host: "srv",
			results: map[string]float64{measure.MonitorLockContention: 5000, measure.LockContention: 10}},
		"load": {raw: []float64{100}, global: 15, cores: 8, host: "cli", results: wrk(0, 0)},
	}, results.Diagnostic{Kind: ContentionBound, Message: "application meets 5000 monitor lock contentions/s (runtime-counter/monitor-lock-contention-count) " +
		"while its CPU is not saturated (100% of 800% (% of one core)) and neither is load's (100% of 800% (% of one core)): lock contention limits the run"})
}

// One connection, no pipelining: both sides mostly idle.
func TestUnderloaded(t *testing.T) {
	check(t, map[string]fakeJob{
		"application": {raw: []float64{45, 47}, global: 40, cores: 2, host: "box",
			results: map[string]float64{measure.LockContention: 2.5}},
		"load": {raw: []float64{33}, global: 40, cores: 2, host: "box", vars: wrkVars(1, 1, 1), results: wrk(0, 0)},
	}, results.Diagnostic{Kind: Underloaded, Message: "neither side is saturated (application: 46% of 167% (% of one core); load: 33% of 100% (% of one core)) " +
		"and lock contention is not high (2.50 ms/s): the load is too light; raise connections (now 1) or pipeline (now 1) if the server pipelines HTTP/1.1"})
}

func TestUnderloadedSuggestions(t *testing.T) {
	th := DefaultThresholds()
	for _, tc := range []struct {
		raw  float64
		vars map[string]any
		want string
	}{
		{60, wrkVars(1, 32, 16), "raise threads (now 1, each 60% busy) or connections (now 32)"},
		{60, wrkVars(2, 512, 16), "raise connections (now 512)"},
		{60, wrkVars(2, 512, 4), "raise pipeline (now 4) if the server pipelines HTTP/1.1"},
		{10, map[string]any{"connections": "64", "rate": 1000}, "the load is capped at 1,000 requests/s (rate) and reached it: raise or remove the cap"},
		{10, nil, "raise the load's connections, pipeline or threads"},
	} {
		l := &job{raw: tc.raw, vars: tc.vars}
		if n, ok := number(tc.vars["threads"]); ok {
			l.threads = int(n)
		}
		if got := suggest(l, th); got != tc.want {
			t.Errorf("%v at %v%%: %q, want %q", tc.vars, tc.raw, got, tc.want)
		}
	}
}

func TestErrorBound(t *testing.T) {
	check(t, map[string]fakeJob{
		"application": {raw: []float64{50}, global: 7, cores: 8, host: "srv"},
		"load":        {raw: []float64{360}, global: 50, cores: 8, host: "cli", vars: wrkVars(4, 64, 1), results: wrk(20000, 500)},
	},
		results.Diagnostic{Kind: ErrorBound, Message: "20,500 of 1,000,500 requests failed (2.0%): 20,000 bad responses (status not 2xx/3xx) " +
			"and 500 socket errors; throughput and latency describe the failures"},
		results.Diagnostic{Kind: ClientBound, Message: "load: the load generator's CPU is saturated (360% of the 400% it can use (% of one core): 4 threads) " +
			"while application uses 50% of 800% (% of one core): the load generator limits the run; give it more threads or a machine of its own"})
}

// A few failures (under 1%) are not a diagnosis.
func TestErrorShareBelowThreshold(t *testing.T) {
	check(t, map[string]fakeJob{
		"application": {raw: []float64{780}, global: 98, cores: 8, host: "srv"},
		"load":        {raw: []float64{100}, global: 20, cores: 8, host: "cli", results: wrk(5000, 0)},
	}, results.Diagnostic{Kind: ServerBound, Message: "application: the server's CPU is saturated (780% of the 800% it can use (% of one core): 8 cores): the server limits the run"})
}

// Machine-busy comes first and marks every other verdict unreliable; what the run's jobs can use
// leaves out the work outside the run.
func TestMachineBusy(t *testing.T) {
	busy := results.Diagnostic{Kind: MachineBusy, Message: "the machine of application and load was 98% busy (benchmarks/cpu/global, % of its 2 cores) " +
		"and 48% of it was used outside the run (other processes, the kernel, the agent): CPU figures and every other verdict are unreliable; run on a quiet machine"}
	// Nothing saturated on a busy machine: no "underloaded", no advice to raise the load.
	check(t, map[string]fakeJob{
		"application": {raw: []float64{60}, global: 98, cores: 2, host: "box"},
		"load":        {raw: []float64{40}, global: 95, cores: 2, host: "box", vars: wrkVars(1, 32, 16), results: wrk(0, 0)},
	}, busy, results.Diagnostic{Kind: Unreliable, Message: "what limited the run cannot be told: neither side reached the CPU it could use " +
		"(application: 60% of 160% (% of one core); load: 40% of 100% (% of one core)), but the machine was busy outside the run, " +
		"so the load may not be too light; run on a quiet machine"})
	// A verdict that stands is marked unreliable.
	check(t, map[string]fakeJob{
		"application": {raw: []float64{5}, global: 98, cores: 2, host: "box"},
		"load":        {raw: []float64{95}, global: 95, cores: 2, host: "box", vars: wrkVars(1, 32, 16), results: wrk(0, 0)},
	}, busy, results.Diagnostic{Kind: ClientBound, Message: "load: the load generator's CPU is saturated (95% of the 100% it can use (% of one core): 1 thread) " +
		"while application uses 5% of 105% (% of one core): the load generator limits the run; give it more threads or a machine of its own " +
		"(unreliable: the machine was busy, see machine-busy)"})
}

// The first wrong case of the issue, in figures: a server spinning on the CPU beside a burner
// taking 40% of one core of a 2-core machine. What the server can use leaves the burner out, so
// it is server-bound, not "underloaded: raise connections"; the load, a small consumer on the
// same machine, is not client-bound.
func TestServerBoundBesideBurner(t *testing.T) {
	check(t, map[string]fakeJob{
		"application": {raw: []float64{148, 152}, global: 97, cores: 2, host: "box"},
		"load":        {raw: []float64{6}, global: 97, cores: 2, host: "box", vars: wrkVars(1, 32, 1), results: wrk(0, 0)},
	}, results.Diagnostic{Kind: ServerBound, Message: "application: the server's CPU is saturated (150% of the 156% it can use (% of one core): " +
		"2 cores, 6% used by load, 38% used outside the run): the server limits the run"})
}

// A bombardier rate cap that the load did not reach is not blamed.
func TestRateCapNotReached(t *testing.T) {
	res := wrk(0, 0)
	res[measure.RPS] = 650
	check(t, map[string]fakeJob{
		"application": {raw: []float64{5}, global: 10, cores: 2, host: "box"},
		"load":        {raw: []float64{8}, global: 10, cores: 2, host: "box", vars: map[string]any{"connections": 32, "rate": 1000}, results: res},
	}, results.Diagnostic{Kind: Underloaded, Message: "neither side is saturated (application: 5% of 192% (% of one core); load: 8% of 195% (% of one core)) " +
		"and lock contention is not high (not measured): the load is too light; the rate cap (1,000 requests/s) was not reached (650 requests/s), " +
		"so it is not the limit; raise connections (now 32)"})
}

// Without a load job, or without CPU samples, only error-bound and machine-busy can apply.
func TestNothingToSay(t *testing.T) {
	check(t, map[string]fakeJob{"application": {raw: []float64{50}, global: 30, cores: 8, host: "srv"}})
	r := &results.Result{JobResults: results.JobResults{Jobs: map[string]*results.JobResult{
		"load": {Results: wrk(0, 0)}, "application": {Results: map[string]float64{}}}}}
	if got := Diagnose(r, DefaultThresholds()); len(got) != 0 {
		t.Errorf("no CPU: %s", show(got))
	}
	if got := Diagnose(nil, DefaultThresholds()); got != nil {
		t.Errorf("nil result: %v", got)
	}
}

// Cores come from benchmarks/cpu and cpu/raw when the environment lacks them; without samples the
// summary values are used.
func TestFiguresFallbacks(t *testing.T) {
	f := fakeJob{raw: []float64{100, 300}, warm: []float64{700}, global: 50, host: "h"}
	jr := f.result()
	// fakeJob writes cpu = raw / max(cores, 1): pretend a 4-core machine.
	for i, m := range jr.Measurements[0] {
		if m.Name == measure.CPU {
			jr.Measurements[0][i].Value = m.Value / 4
		}
	}
	j := readJob("application", jr)
	if j.raw != 200 || j.cores != 4 || j.global != 50 || j.machine != "host:h" || j.load {
		t.Errorf("figures %+v, want raw 200 (warm-up left out), 4 cores, global 50", j)
	}
	j = readJob("load", &results.JobResult{Results: map[string]float64{measure.CPURaw: 80, measure.Requests: 1},
		Environment: map[string]any{"endpoints": []string{"http://a:5010"}}, Variables: map[string]any{"threads": "2"}})
	if !j.hasCPU || j.raw != 80 || j.cores != 0 || j.machine != "url:http://a:5010" || !j.load || j.threads != 2 {
		t.Errorf("summary fallback %+v", j)
	}
	setCap(j, []*job{j}, nil, DefaultThresholds())
	if j.cap != 0 || j.capNote != "cores unknown" || j.saturated(0.9) {
		t.Errorf("unknown cores: cap %v %q, saturated %v; want 0, not saturated", j.cap, j.capNote, j.saturated(0.9))
	}
}

// The controller's reason for missing runtime counters is carried into the diagnosis.
func TestCountersNotMeasuredSaysWhy(t *testing.T) {
	r := runOf(map[string]fakeJob{
		"application": {raw: []float64{60}, global: 8, cores: 8, host: "srv"},
		"load":        {raw: []float64{40}, global: 5, cores: 8, host: "cli", vars: wrkVars(1, 32, 16), results: wrk(0, 0)},
	})
	r.JobResults.Jobs["application"].Environment["countersNotMeasured"] = "metrics off: the job has no metricsPort or metricsUrl"
	got := Diagnose(r, DefaultThresholds())
	if len(got) != 1 || !strings.Contains(got[0].Message, "lock contention is not high (not measured: metrics off: the job has no metricsPort or metricsUrl)") {
		t.Errorf("got %s", show(got))
	}
}
