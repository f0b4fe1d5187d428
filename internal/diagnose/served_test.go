package diagnose

import (
	"strings"
	"testing"

	"github.com/crankshaft/crankshaft/internal/measure"
)

// h2load is an h2load job's results at rps requests/s for 2 s, none bad and no socket error.
func h2load(rps float64) map[string]float64 {
	return map[string]float64{measure.RPS: rps, measure.Requests: 2 * rps, measure.BadResponses: 0, measure.Errors: 0}
}

// app is an application's own counters: the requests it served per second and its failures.
func app(served, exceptions float64) map[string]float64 {
	return map[string]float64{measure.RequestsPerSecond: served, measure.ExceptionCount: exceptions}
}

// servedRun is a quiet two-machine run: the application (with results appRes) and a load.
func servedRun(appRes, loadRes map[string]float64) map[string]fakeJob {
	return map[string]fakeJob{
		"application": {raw: []float64{120}, global: 16, cores: 8, host: "srv", results: appRes},
		"load":        {raw: []float64{100}, global: 14, cores: 8, host: "cli", vars: wrkVars(4, 1, 1), results: loadRes},
	}
}

// TestUnservedFailedCalls: the measured failure, aspnet/Benchmarks' gRPC scenario with a wrong
// path: h2load counted 21,976 good answers/s, the application served none. The verdict names both
// figures, what would explain it and what would tell, and rests on them.
func TestUnservedFailedCalls(t *testing.T) {
	got := check(t, servedRun(app(0, 21976), h2load(21976)), want{Unserved, []string{
		"the load counted 21,976 good answers/s (http/rps/mean 21,976, 0 bad responses, 0 socket errors)",
		"but by its own count (runtime-counter/requests-per-second) application served 0 requests/s: 0 % of them, below 50 %",
		"a wrong path or body", "a gRPC status in the trailers the load tool does not read", "a proxy or another server answering",
		"the application's error counters (runtime-counter/exception-count: application 21,976.00 /s)", "ghz",
	}})
	d := got[0]
	if f := figure(t, d, "application", measure.RequestsPerSecond); f.Value != 0 || f.Unit != measure.UnitRPS {
		t.Errorf("served figure %+v, want 0 req/s", f)
	}
	if f := figure(t, d, "", measure.RPS); f.Value != 21976 {
		t.Errorf("load figure %+v, want 21976", f)
	}
	if f := figure(t, d, "", "served share"); f.Value != 0 || f.Unit != measure.UnitPercent {
		t.Errorf("served share %+v, want 0 %%", f)
	}
	figure(t, d, "application", measure.ExceptionCount)
}

// TestUnservedBesideBusy: other work on the machine does not hide the failure (the run of the
// finding was on a busy 2-core machine): unserved first, machine-busy beside it.
func TestUnservedBesideBusy(t *testing.T) {
	check(t, map[string]fakeJob{
		"application": {raw: []float64{74}, global: 99, cores: 2, host: "box", results: app(0, 0)},
		"load":        {raw: []float64{24}, global: 99, cores: 2, host: "box", results: h2load(21976)},
	}, want{Unserved, []string{"0 % of them", "runtime-counter/exception-count: application 0.00 /s"}}, want{MachineBusy, nil})
}

// TestServedHealthy: the ratios measured on healthy runs of Benchmarks' plaintext, json and gRPC
// scenarios (app/load 0.945 to 1.012 over nine runs of 2 s and 10 s on a shared 2-core machine;
// the lowest, the highest and each scenario's here) and a partial shortfall above ServedShare give
// the verdict the run had without the check.
func TestServedHealthy(t *testing.T) {
	for _, c := range []struct {
		name      string
		load, app float64
	}{
		{"plaintext 2 s", 475097, 480797},
		{"json 2 s", 38050, 35947},
		{"grpc 2 s", 17906, 17675},
		{"plaintext 10 s", 677935, 675350},
		{"grpc 10 s", 12775, 12878},
		{"three fifths served", 10000, 6000},
	} {
		t.Run(c.name, func(t *testing.T) {
			ds := check(t, servedRun(app(c.app, 0), h2load(c.load)), want{Underloaded, nil})
			if strings.Contains(ds[0].Message, "served") {
				t.Errorf("a healthy run says something of served requests: %s", ds[0].Message)
			}
		})
	}
}

// TestServedSeveralServers: the servers that report the figure are added (a proxy and the
// application behind it that both count: no claim unless they served too few together), and the
// verdict names each.
func TestServedSeveralServers(t *testing.T) {
	jobs := servedRun(app(4000, 0), h2load(21976))
	jobs["proxy"] = fakeJob{raw: []float64{40}, global: 16, cores: 8, host: "srv", results: map[string]float64{measure.RequestsPerSecond: 1000}}
	got := check(t, jobs, want{Unserved, []string{"(runtime-counter/requests-per-second) application 4,000 requests/s and proxy 1,000 requests/s served: 23 % of them",
		"the application's error counters (runtime-counter/exception-count: application 0.00 /s)"}})
	figure(t, got[0], "proxy", measure.RequestsPerSecond)
	jobs["proxy"] = fakeJob{raw: []float64{40}, global: 16, cores: 8, host: "srv", results: map[string]float64{measure.RequestsPerSecond: 21976}}
	check(t, jobs, want{Underloaded, nil})
}

// TestServedMoreThanLoad: an application that served more than the load counted (other clients,
// a warm-up's requests) is no failure.
func TestServedMoreThanLoad(t *testing.T) {
	check(t, servedRun(app(45000, 0), h2load(21976)), want{Underloaded, nil})
}

// TestServedNotReported: an application that reports no served rate (a .NET app without the
// counter, an app of another stack) gets no claim either way, even with h2load's 21,976 req/s.
func TestServedNotReported(t *testing.T) {
	check(t, servedRun(map[string]float64{measure.ExceptionCount: 0}, h2load(21976)), want{Underloaded, nil})
	check(t, servedRun(nil, h2load(21976)), want{Underloaded, nil})
}

// TestServedAfterErrors: a run that failed is error-bound first; the bad responses are not
// counted good, so an application that served the good ones is not unserved.
func TestServedAfterErrors(t *testing.T) {
	failed := wrk(300000, 0) // 100,000 req/s, 30 % bad: 70,000 good
	check(t, servedRun(app(0, 0), failed), want{ErrorBound, nil})
	th := DefaultThresholds()
	th.ErrorShare = 0.5 // not error-bound: the good share is compared
	ok := Diagnose(runOf(servedRun(app(70000, 0), failed)), th)
	if len(ok) == 0 || ok[0].Kind == Unserved {
		t.Fatalf("70,000 of 70,000 good answers served, diagnosed %s", show(ok))
	}
	short := Diagnose(runOf(servedRun(app(30000, 0), failed)), th)
	if len(short) == 0 || short[0].Kind != Unserved || !strings.Contains(short[0].Message, "70,000 good answers/s (http/rps/mean 100,000, 300,000 bad responses") {
		t.Fatalf("30,000 of 70,000 good answers served, diagnosed %s", show(short))
	}
}

// TestServedProbe: an unserved run is not probed, and a probe whose run is unserved concludes
// nothing.
func TestServedProbe(t *testing.T) {
	th := DefaultThresholds()
	res := runOf(servedRun(app(0, 0), h2load(21976)))
	if why := ProbeSkip(res, Diagnose(res, th), th); !strings.Contains(why, "did not serve") {
		t.Errorf("probe skip %q, want it to say the application did not serve the answers", why)
	}
	base := runOf(servedRun(app(1000, 0), h2load(1000)))
	at2 := servedRun(app(0, 0), h2load(1010))
	j := at2["load"]
	j.vars = wrkVars(4, 2, 1)
	at2["load"] = j
	got := Probe(Diagnose(base, th), base, th, runOf(at2))
	if len(got) == 0 || got[0].Kind != Underloaded || !strings.Contains(got[0].Message, "but the probe's run failed (unserved): it concludes nothing") {
		t.Errorf("an unserved probe run, diagnosed %s", show(got))
	}
}
