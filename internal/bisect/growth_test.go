package bisect

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/crankshaft/crankshaft/internal/profiles"
	"github.com/crankshaft/crankshaft/internal/results"
)

// profiledRun is a run that counted 1,000 requests, its perf-cpu profile (covering that share of
// the run) with spin samples of 1 ms in main.spinUnderLock and 10 in main.serve.
func profiledRun(t *testing.T, spin int, coverage float64) ProfiledRun {
	t.Helper()
	var b strings.Builder
	for i := range spin + 10 {
		fn := "main.spinUnderLock"
		if i >= spin {
			fn = "main.serve"
		}
		fmt.Fprintf(&b, "app 1 1.0: 1000000 cpu-clock:\n\t 10 %s (/app)\n\t 20 main.main (/app)\n\n", fn)
	}
	p, err := profiles.ParsePerfScript(strings.NewReader(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	var data bytes.Buffer
	if err := p.Write(&data); err != nil {
		t.Fatal(err)
	}
	return ProfiledRun{Profiles: []results.Profile{{Name: "perf-cpu", Data: data.Bytes(), Coverage: coverage}}, Requests: 1000}
}

// failedRun is a run whose perf-cpu profile was not recorded.
var failedRun = ProfiledRun{Profiles: []results.Profile{{Name: "perf-cpu", Error: "perf: no samples in the window"}}, Requests: 1000}

func commit(n int) Commit {
	return Commit{SHA: fmt.Sprintf("%d%039d", n, 0), Subject: fmt.Sprintf("change %d", n)}
}

// The function whose CPU per request grew from the last good commit to the first bad is listed
// first, each side's runs with a profile merged over the requests their windows saw (a run without
// one left out): profiles covering half their runs give the whole 200 µs a request. One that did
// not grow is not listed.
func TestGrowthsNameTheFunctionThatGrew(t *testing.T) {
	good := []ProfiledRun{profiledRun(t, 0, 0.5), profiledRun(t, 0, 0.5)}
	bad := []ProfiledRun{profiledRun(t, 150, 0.5), failedRun, profiledRun(t, 50, 0.5)}
	gs := Growths("application", commit(4), commit(5), good, bad)
	if len(gs) != 1 || gs[0].NotCompared != "" || len(gs[0].Functions) != 1 {
		t.Fatalf("growths: %+v", gs)
	}
	f := gs[0].Functions[0]
	if f.Function != "main.spinUnderLock" || f.Base != 0 || f.Head != 200e3 || gs[0].Profile != "perf-cpu" ||
		gs[0].LastGoodRuns != 2 || gs[0].FirstBadRuns != 2 {
		t.Errorf("grown: %+v in %+v, want main.spinUnderLock 0 -> 200,000 ns a request in perf-cpu over 2 and 2 runs", f, gs[0])
	}
	var out bytes.Buffer
	WriteGrowths(&out, gs)
	want := "what grew from the last good commit 4000000000 to the first bad 5000000000, in application's perf-cpu profile (CPU a request over 2 and 2 runs, by time in the function itself):\n" +
		"   +200.00 µs a request in main.spinUnderLock (0.00 -> 200.00 µs)\n"
	if out.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", out.String(), want)
	}
}

// A run whose profile did not say how much of the run it covered (an older result) is counted
// over all its requests, and the line says that this reads low.
func TestGrowthsSayWhenCoverageIsUnknown(t *testing.T) {
	gs := Growths("application", commit(4), commit(5), []ProfiledRun{profiledRun(t, 0, 0.75)}, // main.serve: 10 ms over 750 requests, as on the bad side
		[]ProfiledRun{profiledRun(t, 100, 0), profiledRun(t, 50, 0.5)})
	if len(gs) != 1 || !gs[0].OverAllRequests || len(gs[0].Functions) != 1 || gs[0].Functions[0].Head != 150e3/1.5 {
		t.Fatalf("growths: %+v, want main.spinUnderLock at 150 ms over 1,500 requests, over all requests", gs)
	}
	var out bytes.Buffer
	WriteGrowths(&out, gs)
	want := "(CPU a request over 1 and 2 runs, by time in the function itself; per request over all the run's requests: reads low when the profile covers part of the run):\n" +
		"   +100.00 µs a request in main.spinUnderLock (0.00 -> 100.00 µs)\n"
	if !strings.HasSuffix(out.String(), want) {
		t.Errorf("got:\n%s\nwant it to end:\n%s", out.String(), want)
	}
}

// A side with no profile is said, naming the commit, never left out silently; neither side's
// profile is said too.
func TestGrowthsSayWhenASideHasNoProfile(t *testing.T) {
	for _, tc := range []struct {
		name      string
		good, bad []ProfiledRun
		want      string
	}{
		{"good failed", []ProfiledRun{failedRun}, []ProfiledRun{profiledRun(t, 200, 1)},
			"perf-cpu profile: not compared: no profile was collected for the last good commit 4000000000 (perf: no samples in the window)"},
		{"bad missing", []ProfiledRun{profiledRun(t, 0, 1)}, nil,
			"perf-cpu profile: not compared: no profile was collected for the first bad commit 5000000000 (none in its runs)"},
		{"neither", nil, nil, "perf-cpu, go-cpu profile: not compared: no CPU profile of application was collected for the last good commit 4000000000 nor the first bad 5000000000"},
	} {
		var out bytes.Buffer
		WriteGrowths(&out, Growths("application", commit(4), commit(5), tc.good, tc.bad))
		if !strings.Contains(out.String(), tc.want) || strings.Count(out.String(), "\n") != 1 {
			t.Errorf("%s: got:\n%s\nwant the line: %s", tc.name, out.String(), tc.want)
		}
	}
}

// A run's requests are its last iteration's, summed over the loads.
func TestLastRequests(t *testing.T) {
	r := &results.Result{JobResults: results.JobResults{Jobs: map[string]*results.JobResult{
		"application": {},
		"load":        {Results: map[string]float64{"http/requests": 1500}, Iterations: []map[string]float64{{"http/requests": 2000}, {"http/requests": 1000}}},
		"load2":       {Results: map[string]float64{"http/requests": 300}},
	}}}
	if got := lastRequests(r); got != 1300 {
		t.Errorf("requests %v, want 1,000 + 300", got)
	}
}

// The last good commit is the latest measured good before the first bad one (by each commit's
// latest verdict), else the good end.
func TestLastGood(t *testing.T) {
	r := Result{Good: commit(0), FirstBad: commit(5).SHA, Steps: []Step{
		{Commit: commit(4), Position: 4, Verdict: Good},
		{Commit: commit(6), Position: 6, Verdict: Bad},
		{Commit: commit(5), Position: 5, Verdict: Bad},
		{Commit: commit(2), Position: 2, Verdict: Good},
	}}
	if got := r.LastGood(); got != commit(4) {
		t.Errorf("last good %s, want %s", got.Short(), commit(4).Short())
	}
	r.Steps[0].Verdict = Skip
	if got := r.LastGood(); got != commit(2) {
		t.Errorf("with 4 skipped: last good %s, want %s", got.Short(), commit(2).Short())
	}
	r.Steps = r.Steps[1:3]
	if got := r.LastGood(); got != commit(0) {
		t.Errorf("none measured good: %s, want the good end %s", got.Short(), commit(0).Short())
	}
}
