package sweep

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/crankshaft/crankshaft/internal/diagnose"
	"github.com/crankshaft/crankshaft/internal/gate"
	"github.com/crankshaft/crankshaft/internal/measure"
	"github.com/crankshaft/crankshaft/internal/results"
)

func axes(t *testing.T, specs ...string) []Axis {
	t.Helper()
	var out []Axis
	for _, s := range specs {
		a, err := ParseAxis(s)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, a)
	}
	if err := CheckAxes(out); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestParseAxis(t *testing.T) {
	a, err := ParseAxis("application.cpuSet=0|0-1,4")
	if err != nil || a.Service() != "application" || a.Path() != "cpuSet" || !a.IsCores() || !slices.Equal(a.Values, []string{"0", "0-1,4"}) {
		t.Errorf("ParseAxis = %+v, %v", a, err)
	}
	v, _ := ParseAxis("dispatch=shared, partitioned")
	if v.Service() != "" || v.Path() != "dispatch" || v.Short() != "dispatch" || !slices.Equal(v.Values, []string{"shared", "partitioned"}) {
		t.Errorf("variable axis = %+v", v)
	}
	for in, want := range map[string]string{"x": "want key=value1", "=a": "want key=value1", "a=b,,c": "empty value", "a=b,b": "twice", ".x=1": "want key"} {
		if _, err := ParseAxis(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseAxis(%q) error %v, want %q", in, err, want)
		}
	}
	if err := CheckAxes([]Axis{{Key: "application.cpuSet"}, {Key: "load.cpuSet"}}); err == nil || !strings.Contains(err.Error(), `two axes named "cpuSet"`) {
		t.Errorf("two cpuSet axes: %v", err)
	}
	if err := CheckAxes(nil); err == nil || !strings.Contains(err.Error(), "no --matrix given") {
		t.Errorf("no axis: %v", err)
	}
}

func TestProductAndOrder(t *testing.T) {
	vs := Product(axes(t, "dispatch=shared,partitioned", "application.cpuSet=0,0-1"))
	var names []string
	for _, v := range vs {
		names = append(names, v.Name)
	}
	want := []string{"dispatch=shared,cpuSet=0", "dispatch=shared,cpuSet=0-1", "dispatch=partitioned,cpuSet=0", "dispatch=partitioned,cpuSet=0-1"}
	if !slices.Equal(names, want) {
		t.Errorf("names %q, want %q", names, want)
	}
	if got := Order(3, 4); !slices.Equal(got, []int{0, 1, 2, 2, 1, 0, 0, 1, 2, 2, 1, 0}) {
		t.Errorf("Order(3, 4) = %v", got)
	}
}

// fakeRun is one run's results: a load with RPS and latency, an application with CPU and lock
// contention, both set by the caller.
func fakeRun(rps, contention float64) *results.Result {
	return &results.Result{JobResults: results.JobResults{Jobs: map[string]*results.JobResult{
		"load":        {Results: map[string]float64{measure.RPS: rps, measure.Latency99: 1000 / rps}},
		"application": {Results: map[string]float64{measure.CPU: 50, measure.CPURaw: 100, measure.LockContention: contention}},
	}}}
}

// sweepOf runs a 2x2 sweep whose runner answers by the variant: partitioned has a tenth of
// shared's contention, and RPS scales with cores only for partitioned. noise varies each run.
func sweepOf(t *testing.T, path string, iterations int, stopAfter int) (*File, error) {
	f, err := NewFile("plaintext", nil, axes(t, "dispatch=shared,partitioned", "application.cpuSet=0,0-1"), "", iterations)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	n := 0
	run := func(ctx context.Context, v Cell) (*results.Result, error) {
		n++
		if n == stopAfter {
			cancel()
			return nil, ctx.Err()
		}
		noise := 1 + 0.01*float64(n%3)
		rps, cont := 1000.0, 500.0
		if v.Value("dispatch") == "partitioned" {
			cont = 50
			if v.Value("application.cpuSet") == "0-1" {
				rps = 1900
			}
		}
		return fakeRun(rps*noise, cont*noise), nil
	}
	return f, Run(ctx, f, Options{Path: path, Run: run})
}

func TestRunReportAndCompareAgree(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sweep.json")
	f, err := sweepOf(t, path, 4, 0)
	if err != nil {
		t.Fatal(err)
	}
	if f.Done != 16 || !f.Complete() || f.Runs(3) != 4 {
		t.Fatalf("done %d, runs of the last variant %d", f.Done, f.Runs(3))
	}
	var out strings.Builder
	if err := f.WriteReport(&out, gate.CompareOptions{}); err != nil {
		t.Fatal(err)
	}
	report := out.String()
	for _, want := range []string{"http/rps/mean (load)", "benchmarks/cpu/per-request (application) [µs]",
		"runtime-counter/lock-contention (application)", "dispatch=partitioned,cpuSet=0-1", "flattens at 1 core:",
		"still scaling at 2 cores", "RPS at 1, 2 cores (dispatch=partitioned)"} {
		if !strings.Contains(report, want) {
			t.Errorf("report lacks %q:\n%s", want, report)
		}
	}
	// The sweep's verdict for partitioned against shared at 0-1 is crank compare's on the file.
	back, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m := Metric{"application", measure.LockContention}
	got := back.Compare(1, 3, []Metric{m}, gate.CompareOptions{})[m]
	base, _ := results.ReadFile(path + "#dispatch=shared,cpuSet=0-1")
	head, _ := results.ReadFile(path + "#4")
	rep, err := gate.CompareResults(base, head, gate.CompareOptions{Metrics: []string{m.Name}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := rep.Services[0].Rows[0].Compared[0]
	if got.Verdict != gate.VerdictImproved || got.Verdict != want.Verdict || got.PValue != want.PValue || got.PValue > 0.05 {
		t.Errorf("sweep %+v, compare %+v; want the same significant improvement", got, want)
	}
	if !strings.Contains(report, fmt.Sprintf("improved *  %.3f", want.PValue)) {
		t.Errorf("report does not show the verdict:\n%s", report)
	}
	if per := back.Variants[0].Result.JobResults.Jobs["application"].Results[measure.CPUPerRequest]; per < 990 || per > 1010 {
		t.Errorf("cpu per request %v µs, want about 1 core / 1000 rps = 1000 us", per)
	}
}

func TestInterruptedSweepResumes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sweep.json")
	_, err := sweepOf(t, path, 2, 6)
	if !errors.Is(err, ErrInterrupted) {
		t.Fatalf("err %v, want ErrInterrupted", err)
	}
	f, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if f.Done != 5 || f.Runs(3) != 2 || f.Runs(2) != 1 {
		t.Fatalf("after the interruption: done %d, runs %d %d", f.Done, f.Runs(3), f.Runs(2))
	}
	if err := f.Resume(axes(t, "dispatch=shared,partitioned", "application.cpuSet=0,0-1,0-3"), 0); err == nil || !strings.Contains(err.Error(), "--resume: the file's matrix") {
		t.Errorf("resume with another matrix: %v", err)
	}
	if err := f.Resume(nil, 3); err != nil {
		t.Fatal(err)
	}
	var ran []string
	err = Run(t.Context(), f, Options{Path: path, Run: func(_ context.Context, v Cell) (*results.Result, error) {
		ran = append(ran, v.Name)
		return fakeRun(1000, 10), nil
	}})
	if err != nil || f.Done != 12 || len(ran) != 7 || ran[0] != "dispatch=partitioned,cpuSet=0" {
		t.Errorf("resumed: err %v, done %d, ran %q", err, f.Done, ran)
	}
}

// TestSweepNotMeasured: a variant whose tool could not measure p99 in every run (wrk pipelined)
// keeps its row with n 0, and the report says why under the table; a reason seen in any run is kept
// across the variant's runs. A reason holding an agent's escapes and newline is printed escaped
// (issue 41, LOW).
func TestSweepNotMeasured(t *testing.T) {
	for why, printed := range map[string]string{
		"wrk printed 0.00us though its latencies reach 16.64 ms": "wrk printed 0.00us though its latencies reach 16.64 ms",
		"\x1b]52;c;aWQK\x07\nforged":                             `\x1b]52;c;aWQK\x07\nforged`,
	} {
		f, err := NewFile("plaintext", nil, axes(t, "pipeline=1,16"), "", 2)
		if err != nil {
			t.Fatal(err)
		}
		run := func(_ context.Context, v Cell) (*results.Result, error) {
			r := fakeRun(1000, 10)
			if v.Value("pipeline") == "16" {
				load := r.JobResults.Jobs["load"]
				delete(load.Results, measure.Latency99)
				load.NotMeasured = map[string]string{measure.Latency99: why}
			}
			return r, nil
		}
		if err := Run(t.Context(), f, Options{Path: filepath.Join(t.TempDir(), "s.json"), Run: run}); err != nil {
			t.Fatal(err)
		}
		var out strings.Builder
		if err := f.WriteReport(&out, gate.CompareOptions{}); err != nil {
			t.Fatal(err)
		}
		if want := "pipeline=16: not measured in some runs: " + printed; !strings.Contains(out.String(), want) || strings.ContainsAny(out.String(), "\x1b\x07") {
			t.Errorf("report lacks %q or holds an escape:\n%s", want, out.String())
		}
	}
}

// TestScalingFromABusyMachine: a curve drawn from variants whose diagnosis says machine-busy makes
// no scaling claim ("flattens at 1 core" was issue 44's, from runs that were all machine-busy): it
// says it cannot tell, naming them; a curve of quiet variants still concludes.
func TestScalingFromABusyMachine(t *testing.T) {
	f, err := sweepOf(t, filepath.Join(t.TempDir(), "sweep.json"), 3, 0)
	if err != nil {
		t.Fatal(err)
	}
	busy := results.Diagnostic{Kind: diagnose.MachineBusy, Message: "other work took 48 % of the machine"}
	for _, i := range []int{0, 1} { // dispatch=shared at 0 and 0-1
		f.Variants[i].Result.JobResults.Diagnostics = []results.Diagnostic{busy}
	}
	curves := f.Curves(gate.CompareOptions{})
	if len(curves) != 2 || curves[0].FlatAt != 0 || !slices.Equal(curves[0].Busy, []string{"dispatch=shared,cpuSet=0", "dispatch=shared,cpuSet=0-1"}) {
		t.Fatalf("curves %+v: want shared's with no flattening and both variants named busy", curves)
	}
	var out strings.Builder
	if err := f.WriteReport(&out, gate.CompareOptions{}); err != nil {
		t.Fatal(err)
	}
	report := out.String()
	if strings.Contains(report, "flattens at") || !strings.Contains(report, "still scaling at 2 cores") ||
		!strings.Contains(report, "cannot tell how RPS scales over the cores: dispatch=shared,cpuSet=0, dispatch=shared,cpuSet=0-1 ran on a busy machine") {
		t.Errorf("report:\n%s", report)
	}
}

// TestScalingLimitedElsewhere: a step that gained no RPS while its run's diagnosis says the load
// or the machine limited it, not the server, draws no flattening claim (issue 42's make measure
// printed "flattens at 1 core" beside a machine-saturated run with idle CPU on two cores); one
// whose run was server-bound or contention-bound still flattens.
func TestScalingLimitedElsewhere(t *testing.T) {
	for _, c := range []struct {
		kind string
		flat bool
	}{
		{diagnose.MachineSaturated, false}, {diagnose.Underloaded, false}, {diagnose.ClientBound, false},
		{diagnose.Waiting, false}, {diagnose.ServerBound, true}, {diagnose.ContentionBound, true},
	} {
		f, err := sweepOf(t, filepath.Join(t.TempDir(), "sweep.json"), 3, 0)
		if err != nil {
			t.Fatal(err)
		}
		// dispatch=shared gains nothing from 0 to 0-1 (sweepOf); its 0-1 run gets the verdict.
		f.Variants[1].Result.JobResults.Diagnostics = []results.Diagnostic{{Kind: c.kind, Message: "m"}}
		curves := f.Curves(gate.CompareOptions{})
		if len(curves) != 2 {
			t.Fatalf("%s: curves %+v", c.kind, curves)
		}
		shared := curves[0]
		text := shared.Conclusion()
		if c.flat {
			if shared.FlatAt != 1 || shared.NotServer != "" || text != "flattens at 1 core: more cores gave no significant RPS gain" {
				t.Errorf("%s: FlatAt %d NotServer %q: %s", c.kind, shared.FlatAt, shared.NotServer, text)
			}
			continue
		}
		want := "cannot tell whether RPS stops scaling at 1 core: dispatch=shared,cpuSet=0-1 gained no significant RPS, but its verdict (" + c.kind + ") does not say the server limited it"
		if shared.FlatAt != 0 || shared.NotServerKind != c.kind || !strings.HasPrefix(text, want) {
			t.Errorf("%s: FlatAt %d, kind %q:\n%s\nwant it to start %q", c.kind, shared.FlatAt, shared.NotServerKind, text, want)
		}
		if got := curves[1].Conclusion(); got != "still scaling at 2 cores (each step gained RPS significantly)" {
			t.Errorf("%s: partitioned: %s", c.kind, got)
		}
	}
}
