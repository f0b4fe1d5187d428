package diagnose

import (
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
	steal   float64   // machine steal in every sample (0: none recorded)
	cores   int       // 0: no "cores" in the environment
	cpuSet  int       // cores of the job's cpuSet; 0: not pinned
	cpus    string    // the cpuSet itself ("0", "1-3"); "": not given
	host    string
	vars    map[string]any
	results map[string]float64
	extra   []api.Measurement // more samples, after the CPU's
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
			if f.steal > 0 {
				add(measure.CPUSteal, f.steal, i == 0)
			}
		}
	}
	env := map[string]any{"hostname": f.host, "endpoints": []any{"http://127.0.0.1:5010"}}
	if f.cores > 0 {
		env["cores"] = float64(f.cores) // as JSON gives it back
	}
	if f.cpuSet > 0 {
		env["cpuSetCores"] = float64(f.cpuSet)
	}
	if f.cpus != "" {
		env["cpuSet"] = f.cpus
	}
	res := map[string]float64{}
	for k, v := range f.results {
		res[k] = v
	}
	tl = append(tl, f.extra...)
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

// want is a diagnostic's kind and parts of its message.
type want struct {
	kind  string
	parts []string
}

func check(t *testing.T, jobs map[string]fakeJob, ws ...want) []results.Diagnostic {
	t.Helper()
	got := Diagnose(runOf(jobs), DefaultThresholds())
	if len(got) != len(ws) {
		t.Fatalf("got %d diagnostics, want %d:\n%s", len(got), len(ws), show(got))
	}
	for i, w := range ws {
		if got[i].Kind != w.kind {
			t.Errorf("diagnostic %d: kind %s, want %s:\n%s", i, got[i].Kind, w.kind, show(got))
		}
		for _, p := range w.parts {
			if !strings.Contains(got[i].Message, p) {
				t.Errorf("diagnostic %d (%s) lacks %q:\n%s", i, got[i].Kind, p, got[i].Message)
			}
		}
		if len(got[i].Figures) == 0 {
			t.Errorf("diagnostic %d (%s) rests on no figures", i, got[i].Kind)
		}
	}
	return got
}

// figure finds a figure of a diagnostic by service and name (and stat, when given).
func figure(t *testing.T, d results.Diagnostic, service, name string, stat ...string) results.Figure {
	t.Helper()
	for _, f := range d.Figures {
		if f.Service == service && f.Name == name && (len(stat) == 0 || f.Stat == stat[0]) {
			return f
		}
	}
	t.Fatalf("%s rests on no %s %s: %v", d.Kind, service, name, d.Figures)
	return results.Figure{}
}

func show(ds []results.Diagnostic) string {
	s := ""
	for _, d := range ds {
		s += "  " + d.Kind + ": " + d.Message + "\n"
		for _, f := range d.Figures {
			s += "    " + f.String() + "\n"
		}
	}
	return s
}

// Separate 8-core machines for the server and the load, unless a test says otherwise.
func TestClientBound(t *testing.T) {
	got := check(t, map[string]fakeJob{
		"application": {raw: []float64{300, 320}, warm: []float64{790}, global: 40, cores: 8, host: "srv"},
		"load":        {raw: []float64{396, 392}, global: 50, cores: 8, host: "cli", vars: wrkVars(4, 256, 1), results: wrk(0, 0)},
	}, want{ClientBound, []string{"load: the load generator's CPU is saturated (49 % of the machine (3.9 of 8 cores; it could use 4.0: 4 threads)) " +
		"while application uses 39 % of the machine (3.1 of 8 cores)"}})
	if f := figure(t, got[0], "load", measure.CPU); f.Value != 49.25 || f.Unit != "%" || f.Stat != "mean" {
		t.Errorf("load's CPU figure %+v, want the mean of the measured samples, 49.25 %%", f)
	}
	if f := figure(t, got[0], "application", measure.CPU); f.Value != 38.75 {
		t.Errorf("application's CPU figure %+v, want 38.75 (warm-up left out)", f)
	}
}

// On one 2-core machine where the load and the server each take about half and fill it
// together, neither alone is the limit: the machine is.
func TestMachineSaturated(t *testing.T) {
	got := check(t, map[string]fakeJob{
		"application": {raw: []float64{90, 94}, global: 98, cores: 2, host: "box"},
		"load":        {raw: []float64{96, 100}, global: 98, cores: 2, host: "box", vars: wrkVars(1, 32, 16), results: wrk(0, 0)},
	}, want{MachineSaturated, []string{"application and load together fill the machine (98 % busy, 2 cores): application 46 % (0.9 cores), load 49 % (1.0 cores)"}})
	if f := figure(t, got[0], "application and load", measure.CPUGlobal); f.Value != 98 {
		t.Errorf("machine figure %+v", f)
	}
	// The seeds' case: 165 % of the 2 cores in the processes, the kernel's network work making up the rest.
	check(t, map[string]fakeJob{
		"application": {raw: []float64{70}, global: 93, cores: 2, host: "box"},
		"load":        {raw: []float64{95}, global: 93, cores: 2, host: "box", vars: wrkVars(1, 32, 16), results: wrk(0, 0)},
	}, want{MachineSaturated, nil})
	// Not full: the load's one thread is busy, the machine is not.
	check(t, map[string]fakeJob{
		"application": {raw: []float64{30}, global: 64, cores: 2, host: "box"},
		"load":        {raw: []float64{96}, global: 64, cores: 2, host: "box", vars: wrkVars(1, 32, 16), results: wrk(0, 0)},
	}, want{ClientBound, []string{"it could use 1.0: 1 thread"}})
}

// The capacity search's knee on this machine with the server pinned to CPU 0 and the built-in
// generator (one thread) to CPU 1: the machine is full, but the two do not share a core, so it is
// not "machine saturated" (whose advice, a machine of its own for the load, is what the pinning
// already gives); each is judged on its own cpuSet: the server is the busier, the limit.
func TestPinnedApartIsNotMachineSaturated(t *testing.T) {
	check(t, map[string]fakeJob{
		"application": {raw: []float64{98, 99}, global: 96, cores: 2, cpuSet: 1, cpus: "0", host: "box"},
		"load":        {raw: []float64{86, 88}, global: 96, cores: 2, cpuSet: 1, cpus: "1", host: "box", vars: wrkVars(2, 32, 16), results: wrk(0, 0)},
	}, want{ServerBound, []string{"application: the server's CPU is saturated (49 % of the machine (1.0 of 2 cores; it could use 1.0: 1 core of its cpuSet))"}})
	// Pinned to the same CPUs, they do fill their cores together.
	check(t, map[string]fakeJob{
		"application": {raw: []float64{90, 94}, global: 98, cores: 2, cpuSet: 2, cpus: "0-1", host: "box"},
		"load":        {raw: []float64{96, 100}, global: 98, cores: 2, cpuSet: 2, cpus: "0-1", host: "box", vars: wrkVars(1, 32, 16), results: wrk(0, 0)},
	}, want{MachineSaturated, nil})
}

// A server pinned to 2 of 8 cores is saturated at 2 cores.
func TestServerBoundOnItsCPUSet(t *testing.T) {
	check(t, map[string]fakeJob{
		"application": {raw: []float64{196, 194}, global: 30, cores: 8, cpuSet: 2, host: "srv"},
		"load":        {raw: []float64{150}, global: 20, cores: 8, host: "cli", vars: wrkVars(8, 256, 1), results: wrk(0, 0)},
	}, want{ServerBound, []string{"application: the server's CPU is saturated (24 % of the machine (1.9 of 8 cores; it could use 2.0: 2 cores of its cpuSet))"}})
}

func TestServerBound(t *testing.T) {
	got := check(t, map[string]fakeJob{
		"application": {raw: []float64{770, 780}, global: 97, cores: 8, host: "srv"},
		"load":        {raw: []float64{150}, global: 20, cores: 8, host: "cli", vars: wrkVars(8, 256, 1), results: wrk(0, 0)},
	}, want{ServerBound, []string{"(97 % of the machine (7.8 of 8 cores; it could use 8.0: 8 cores)) while load uses 19 % of the machine (1.5 of 8 cores): the server limits the run"}})
	if f := figure(t, got[0], "application", "cores it could use"); f.Value != 8 || f.Unit != "cores" {
		t.Errorf("cap figure %+v", f)
	}
}

// The gRPC story: throughput flat, server CPU low, the load idle, the server's goroutines queued on a lock.
func TestContentionBound(t *testing.T) {
	got := check(t, map[string]fakeJob{
		"application": {raw: []float64{110, 114}, global: 15, cores: 8, host: "srv",
			results: map[string]float64{measure.LockContention: 2400}},
		"load": {raw: []float64{120}, global: 16, cores: 8, host: "cli", vars: wrkVars(8, 256, 1), results: wrk(0, 0)},
	}, want{ContentionBound, []string{"application waits 2400 ms/s on locks (runtime-counter/lock-contention) against 1120 ms/s of CPU " +
		"while its CPU is not saturated (14 % of the machine (1.1 of 8 cores)) and neither is load's (15 % of the machine (1.2 of 8 cores))"}})
	if f := figure(t, got[0], "application", measure.LockContention); f.Value != 2400 || f.Unit != "ms/s" {
		t.Errorf("lock figure %+v", f)
	}
}

func TestContentionBoundMonitor(t *testing.T) {
	check(t, map[string]fakeJob{
		"application": {raw: []float64{100}, global: 15, cores: 8, host: "srv",
			results: map[string]float64{measure.MonitorLockContention: 5000, measure.LockContention: 10}},
		"load": {raw: []float64{100}, global: 15, cores: 8, host: "cli", results: wrk(0, 0)},
	}, want{ContentionBound, []string{"application meets 5000 monitor lock contentions/s (runtime-counter/monitor-lock-contention-count)"}})
}

// One connection, no pipelining: both sides mostly idle.
func TestUnderloaded(t *testing.T) {
	check(t, map[string]fakeJob{
		"application": {raw: []float64{45, 47}, global: 40, cores: 2, host: "box",
			results: map[string]float64{measure.LockContention: 2.5}},
		"load": {raw: []float64{33}, global: 40, cores: 2, host: "box", vars: wrkVars(1, 1, 1), results: wrk(0, 0)},
	}, want{Underloaded, []string{"neither side is saturated (application: 23 % of the machine (0.5 of 2 cores); load: 16 % of the machine (0.3 of 2 cores)) " +
		"and lock contention is not high (2.50 ms/s): the load is too light; raise connections (now 1) or pipeline (now 1) if the server pipelines HTTP/1.1"}})
}

func TestUnderloadedSuggestions(t *testing.T) {
	th := DefaultThresholds()
	for _, tc := range []struct {
		used float64
		vars map[string]any
		want string
	}{
		{0.6, wrkVars(1, 32, 16), "raise threads (now 1, each 60 % busy) or connections (now 32)"},
		{0.6, wrkVars(2, 512, 16), "raise connections (now 512)"},
		{0.6, wrkVars(2, 512, 4), "raise pipeline (now 4) if the server pipelines HTTP/1.1"},
		{0.1, map[string]any{"connections": "64", "rate": 1000}, "the load is capped at 1,000 requests/s (rate) and reached it: raise or remove the cap"},
		{0.1, nil, "raise the load's connections, pipeline or threads"},
	} {
		l := &job{used: tc.used, vars: tc.vars}
		if n, ok := number(tc.vars["threads"]); ok {
			l.threads = int(n)
		}
		if got := suggest(l, th); got != tc.want {
			t.Errorf("%v at %v cores: %q, want %q", tc.vars, tc.used, got, tc.want)
		}
	}
}

// Failed requests are the verdict, whatever the CPU says; a busy machine is said beside it.
func TestErrorBound(t *testing.T) {
	got := check(t, map[string]fakeJob{
		"application": {raw: []float64{50}, global: 7, cores: 8, host: "srv"},
		"load":        {raw: []float64{360}, global: 50, cores: 8, host: "cli", vars: wrkVars(4, 64, 1), results: wrk(20000, 500)},
	}, want{ErrorBound, []string{"20,500 of 1,000,500 requests failed (2.0 %): 20,000 bad responses (status not 2xx/3xx) and 500 socket errors"}})
	if f := figure(t, got[0], "", measure.BadResponses); f.Value != 20000 || f.Unit != "count" {
		t.Errorf("bad responses figure %+v", f)
	}
	check(t, map[string]fakeJob{
		"application": {raw: []float64{20}, global: 90, cores: 2, host: "box"},
		"load":        {raw: []float64{20}, global: 90, cores: 2, host: "box", vars: wrkVars(1, 32, 1), results: wrk(0, 500000)},
	}, want{ErrorBound, nil}, want{MachineBusy, nil})
}

// A few failures (under 1%) are not a diagnosis.
func TestErrorShareBelowThreshold(t *testing.T) {
	check(t, map[string]fakeJob{
		"application": {raw: []float64{780}, global: 98, cores: 8, host: "srv"},
		"load":        {raw: []float64{100}, global: 20, cores: 8, host: "cli", results: wrk(5000, 0)},
	}, want{ServerBound, nil})
}

// Another process taking a quarter of the machine or more is the verdict: CPU figures cannot say
// what limited the run, so no bottleneck is named beside it (no "underloaded", no advice).
func TestMachineBusy(t *testing.T) {
	got := check(t, map[string]fakeJob{
		"application": {raw: []float64{60}, global: 98, cores: 2, host: "box"},
		"load":        {raw: []float64{40}, global: 95, cores: 2, host: "box", vars: wrkVars(1, 32, 16), results: wrk(0, 0)},
	}, want{MachineBusy, []string{"other work took 48 % of the machine of application and load (1.0 of 2 cores) beyond the run's application 30 % (0.6 cores), load 20 % (0.4 cores): the machine was 98 % busy"}})
	if f := figure(t, got[0], "", "outside the run"); f.Value != 48 || f.Unit != "%" {
		t.Errorf("outside figure %+v", f)
	}
	// A saturated load on a busy machine is not named either.
	check(t, map[string]fakeJob{
		"application": {raw: []float64{5}, global: 98, cores: 2, host: "box"},
		"load":        {raw: []float64{95}, global: 95, cores: 2, host: "box", vars: wrkVars(1, 32, 16), results: wrk(0, 0)},
	}, want{MachineBusy, nil})
	// A quarter of a 2-core machine is busy; a fifth is not.
	for _, tc := range []struct {
		global float64
		kind   string
	}{{39, MachineBusy}, {30, Underloaded}} {
		check(t, map[string]fakeJob{
			"application": {raw: []float64{10}, global: tc.global, cores: 2, host: "box"},
			"load":        {raw: []float64{18}, global: tc.global, cores: 2, host: "box", vars: wrkVars(1, 1, 1), results: wrk(0, 0)},
		}, want{tc.kind, nil})
	}
}

// The first wrong case of the issue, in figures: a server spinning on the CPU beside a burner
// taking 40% of one core of a 2-core machine. What the server can use leaves the burner out, so
// it is server-bound, not "underloaded: raise connections"; the load, a small consumer on the
// same machine, is not client-bound, nor does it fill the machine with the server.
func TestServerBoundBesideBurner(t *testing.T) {
	check(t, map[string]fakeJob{
		"application": {raw: []float64{148, 152}, global: 97, cores: 2, host: "box"},
		"load":        {raw: []float64{6}, global: 97, cores: 2, host: "box", vars: wrkVars(1, 32, 1), results: wrk(0, 0)},
	}, want{ServerBound, []string{"application: the server's CPU is saturated (75 % of the machine (1.5 of 2 cores; it could use 1.6: 2 cores less 0.1 used by load and 0.4 used outside the run))"}})
}

// A rate cap the load did not reach is not blamed (its 32 connections wait 49 ms a request: the
// probe tells whether more would help); one it reached is the verdict.
func TestRateCap(t *testing.T) {
	res := wrk(0, 0)
	res[measure.RPS] = 650
	check(t, map[string]fakeJob{
		"application": {raw: []float64{5}, global: 10, cores: 2, host: "box"},
		"load":        {raw: []float64{8}, global: 10, cores: 2, host: "box", vars: map[string]any{"connections": 32, "rate": 1000}, results: res},
	}, want{Waiting, []string{"the rate cap (1,000 requests/s) was not reached (650 requests/s), so it is not the limit"}})
	res = wrk(0, 0)
	res[measure.RPS] = 998
	got := check(t, map[string]fakeJob{
		"application": {raw: []float64{5}, global: 10, cores: 2, host: "box"},
		"load":        {raw: []float64{8}, global: 10, cores: 2, host: "box", vars: map[string]any{"connections": 32, "rate": 1000}, results: res},
	}, want{RateCapped, []string{"load reached its rate cap (998 of 1,000 requests/s): the cap, not the server, limits the run"}})
	if f := figure(t, got[0], "load", "variables/rate"); f.Value != 1000 || f.Unit != "req/s" {
		t.Errorf("rate figure %+v", f)
	}
	// A reached cap does not rest on CPU figures: it stands on a busy machine, said beside it.
	check(t, map[string]fakeJob{
		"application": {raw: []float64{5}, global: 90, cores: 2, host: "box"},
		"load":        {raw: []float64{8}, global: 90, cores: 2, host: "box", vars: map[string]any{"connections": 32, "rate": 1000}, results: res},
	}, want{RateCapped, nil}, want{MachineBusy, nil})
}

// Without a load job, or without CPU samples, only error-bound and machine-busy can apply.
func TestNothingToSay(t *testing.T) {
	if got := Diagnose(runOf(map[string]fakeJob{"application": {raw: []float64{50}, global: 15, cores: 8, host: "srv"}}), DefaultThresholds()); len(got) != 0 {
		t.Errorf("no load: %s", show(got))
	}
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
	if j.cpu != 50 || j.used != 2 || j.cores != 4 || j.global != 50 || j.machine != "host:h" || j.load {
		t.Errorf("figures %+v, want cpu 50 %% (warm-up left out), 2 of 4 cores, global 50", j)
	}
	j = readJob("load", &results.JobResult{Results: map[string]float64{measure.CPU: 80, measure.Requests: 1},
		Environment: map[string]any{"endpoints": []string{"http://a:5010"}}, Variables: map[string]any{"threads": "2"}})
	if !j.hasCPU || j.cpu != 80 || j.cores != 0 || j.machine != "url:http://a:5010" || !j.load || j.threads != 2 {
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

// TestStealInMachineBusy: a machine whose hypervisor gave 30 % of its CPU time to other guests is
// busy (steal is CPU outside the run), and the verdict says the steal was the host's (this
// machine's host took 5-36 % in bursts while a pinned app's requests/s swung from 14k to 50k
// between 3 s windows). 8 % alone does not make it busy: the CPU verdicts still hold (a make test
// beside 6-10 % of steal saw a contention-bound server called machine-busy when it did).
func TestStealInMachineBusy(t *testing.T) {
	got := check(t, map[string]fakeJob{
		"application": {raw: []float64{10}, global: 60, steal: 30, cores: 2, host: "vm"},
		"load":        {raw: []float64{18}, global: 60, steal: 30, cores: 2, host: "vm", vars: wrkVars(1, 1, 1), results: wrk(0, 0)},
	}, want{MachineBusy, []string{"its hypervisor gave 30.0 % of the machine's CPU time to other guests (steal)", "run on a quiet machine"}})
	if f := figure(t, got[0], "application and load", measure.CPUSteal); f.Value != 30 || f.Unit != "%" {
		t.Errorf("steal figure %+v, want 30 %%", f)
	}
	check(t, map[string]fakeJob{
		"application": {raw: []float64{10}, global: 30, steal: 8, cores: 2, host: "vm"},
		"load":        {raw: []float64{18}, global: 30, steal: 8, cores: 2, host: "vm", vars: wrkVars(1, 1, 1), results: wrk(0, 0)},
	}, want{Underloaded, nil})
}

// TestStolen: the run's worst machine steal, and whether it reaches StealShare (the rule crank
// bisect reruns an iteration by, and machine-busy names the steal by).
func TestStolen(t *testing.T) {
	th := DefaultThresholds()
	for _, tc := range []struct {
		app, load float64
		want      float64
		stolen    bool
	}{{8, 2, 8, true}, {1, 4.9, 4.9, false}, {0, 0, 0, false}} {
		res := runOf(map[string]fakeJob{
			"application": {raw: []float64{10}, global: 40, steal: tc.app, cores: 2, host: "a"},
			"load":        {raw: []float64{18}, global: 40, steal: tc.load, cores: 2, host: "b", results: wrk(0, 0)},
		})
		if got, stolen := Stolen(res, th); got != tc.want || stolen != tc.stolen {
			t.Errorf("steal %v and %v: Stolen %v %v, want %v %v", tc.app, tc.load, got, stolen, tc.want, tc.stolen)
		}
	}
}

// TestClientBoundOnAStolenHost: wrk's one thread busy 87 % of the time while the host steals 13 %
// of every core is saturated: the thread had no more to take (gate run 9 called such a run
// serialized, and its probe blamed the server).
func TestClientBoundOnAStolenHost(t *testing.T) {
	got := check(t, map[string]fakeJob{
		"application": {raw: []float64{20}, global: 66, steal: 13, cores: 2, host: "vm"},
		"load":        {raw: []float64{87}, global: 66, steal: 13, cores: 2, host: "vm", vars: wrkVars(1, 8, 1), results: wrk(0, 0)},
	}, want{ClientBound, []string{"it could use 0.9: 1 thread less 13.0 % stolen by the host"}})
	figure(t, got[0], "load", measure.CPU)
	check(t, map[string]fakeJob{
		"application": {raw: []float64{20}, global: 55, steal: 2, cores: 2, host: "vm"},
		"load":        {raw: []float64{87}, global: 55, steal: 2, cores: 2, host: "vm", vars: wrkVars(1, 8, 1), results: wrk(0, 0)},
	}, want{Underloaded, nil})
}
