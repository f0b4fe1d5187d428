package gate

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/crankshaft/crankshaft/internal/measure"
	"github.com/crankshaft/crankshaft/internal/results"
)

// repeated is run's result taken n times as n iterations (results.AddIteration, which derives the
// error rate and the CPU per request of each): iterations without spread.
func repeated(n int, run func() *results.Result) *results.Result {
	var acc *results.Result
	for range n {
		acc = results.AddIteration(acc, run())
	}
	return acc
}

// load builds a load result of 1M responses, bad of them failed, at the given RPS, reported as
// http/rps/mean and wrk/rps/mean.
func loadResult(rps, bad float64) *results.Result {
	r := newResult(rand.New(rand.NewPCG(9, 9)), 0,
		metricSpec{measure.RPS, rps, 0}, metricSpec{measure.WrkRPS, rps, 0},
		metricSpec{measure.Requests, 1e6, 0}, metricSpec{measure.BadResponses, bad, 0},
		metricSpec{measure.Errors, 0, 0}, metricSpec{measure.Latency99, 2, 0})
	return r
}

// A 404 server answers faster than a healthy one: RPS "improves", and the error rate says why
// that is a regression (three iterations a side: 0 % against 100 % every time).
func TestCompareHealthyAgainstAllErrorsRegresses(t *testing.T) {
	dir := t.TempDir()
	base := writeResult(t, dir, "200.json", repeated(3, func() *results.Result { return loadResult(480000, 0) }))
	head := writeResult(t, dir, "404.json", repeated(3, func() *results.Result { return loadResult(566000, 1e6) }))
	code, out, errOut := runCompare(base, head)
	if code != ExitRegressed {
		t.Fatalf("exit %d, want 1; stdout:\n%s\nstderr: %s", code, out, errOut)
	}
	for _, want := range []string{"http/requests/error-rate", "%", "0.00", "100.00", "regressed", "load http/requests/error-rate"} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, measure.WrkRPS) {
		t.Errorf("wrk/rps/mean is http/rps/mean again and must be counted once:\n%s", out)
	}
	// A few errors against none is not a regression of the rate.
	head2 := writeResult(t, dir, "few.json", repeated(3, func() *results.Result { return loadResult(480000, 5) }))
	if code, out, _ := runCompare(base, head2); code != ExitOK || !strings.Contains(flat(out), "http/requests/error-rate % 0.00 0.00 +inf unchanged") {
		t.Errorf("5 errors in 1M: exit %d, want 0 and the error rate unchanged:\n%s", code, out)
	}
	// Without iterations the rate's rule still holds; the RPS cannot tell.
	single := writeResult(t, dir, "single.json", loadResult(480000, 5))
	if code, out, _ := runCompare(writeResult(t, dir, "single-base.json", loadResult(480000, 0)), single); code != ExitInconclusive ||
		!strings.Contains(flat(out), "http/requests/error-rate % 0.00 0.00 +inf unchanged - -") {
		t.Errorf("single runs, 5 errors in 1M: exit %d, want %d and the error rate unchanged:\n%s", code, ExitInconclusive, out)
	}
}

// serverRun is a load at rps beside a server whose CPU is cpu (% of one core).
func serverRun(rps, cpu float64, host string) *results.Result {
	r := loadResult(rps, 0)
	srv := &results.JobResult{Results: map[string]float64{measure.CPU: cpu / 2, measure.CPURaw: cpu},
		Environment: map[string]any{"hostname": host, "cores": 2, "job": "plaintext"},
		Variables:   map[string]any{"workers": 4}}
	for _, n := range []string{measure.CPU, measure.CPURaw} {
		md, _ := measure.Default().Lookup(n)
		srv.Metadata = append(srv.Metadata, md)
	}
	r.JobResults.Jobs["application"] = srv
	return r
}

// CPU up 50% with RPS up 100% is less CPU per request: not a regression.
func TestCompareCPUPerRequest(t *testing.T) {
	dir := t.TempDir()
	base := writeResult(t, dir, "base.json", repeated(3, func() *results.Result { return serverRun(100000, 100, "box") }))
	head := writeResult(t, dir, "head.json", repeated(3, func() *results.Result { return serverRun(200000, 150, "box") }))
	code, out, _ := runCompare(base, head)
	if code != ExitOK {
		t.Fatalf("exit %d, want 0:\n%s", code, out)
	}
	for _, want := range []string{measure.CPUPerRequest, "10.00", "7.50", "µs", string(VerdictPerRequest), "improved"} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	// The same CPU rise at the same RPS is a regression.
	worse := writeResult(t, dir, "worse.json", repeated(3, func() *results.Result { return serverRun(100000, 150, "box") }))
	if code, out, _ := runCompare(base, worse); code != ExitRegressed ||
		!strings.Contains(out, "application benchmarks/cpu, application benchmarks/cpu/per-request") {
		t.Errorf("exit %d, want 1 on CPU and CPU per request:\n%s", code, out)
	}
}

func TestCompareWarnsOnMismatchedSides(t *testing.T) {
	dir := t.TempDir()
	a := serverRun(100000, 100, "box")
	b := serverRun(100000, 100, "other")
	b.Scenario = "json"
	b.JobResults.Jobs["application"].Variables["workers"] = 8
	b.JobResults.Diagnostics = []results.Diagnostic{{Kind: "machine-busy", Message: "the machine was 98% busy"}}
	_, out, _ := runCompare(writeResult(t, dir, "a.json", a), writeResult(t, dir, "b.json", b))
	for _, want := range []string{
		`warning: a and b ran different scenarios ("plaintext", "json")`,
		"warning: application: a and b differ in variables: workers 4 -> 8",
		"warning: application: a and b ran on different machines: hostname box -> other",
		"warning: b ran on a busy machine: the machine was 98% busy",
		// single runs: inconclusive, and a quiet machine is one way to tell
		"A result ran on a busy machine: a quiet machine narrows the intervals too.",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
}
