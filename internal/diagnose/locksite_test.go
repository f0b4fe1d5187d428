package diagnose

import (
	"strings"
	"testing"

	"github.com/crankshaft/crankshaft/internal/measure"
	"github.com/crankshaft/crankshaft/internal/profiles"
	"github.com/crankshaft/crankshaft/internal/results"
)

// With a Go mutex profile (goProfiles), contention-bound names where the lock wait was.
func TestContentionBoundNamesTheLock(t *testing.T) {
	res := runOf(map[string]fakeJob{
		"application": {raw: []float64{110, 114}, global: 15, cores: 8, host: "srv",
			results: map[string]float64{measure.LockContention: 2400}},
		"load": {raw: []float64{120}, global: 16, cores: 8, host: "cli", vars: wrkVars(8, 256, 1), results: wrk(0, 0)},
	})
	res.JobResults.Jobs["application"].Profiles = []results.Profile{{Name: "go-mutex",
		Site: &profiles.Func{Name: "main.handler", File: "/src/app/main.go", Line: 42, Share: 0.8}}}
	got := Diagnose(res, DefaultThresholds())
	want := "(80 % of the lock wait at main.handler (main.go:42))"
	if len(got) == 0 || got[0].Kind != ContentionBound || !strings.Contains(got[0].Message, want) {
		t.Fatalf("got %s, want contention-bound with %q", show(got), want)
	}
}

// With a CPU profile (collect's perf-cpu, else goProfiles' go-cpu), server-bound names where the
// server's CPU went; without one it says nothing of it.
func TestServerBoundNamesTheHotFunction(t *testing.T) {
	for _, c := range []struct {
		profiles []results.Profile
		want     string
	}{
		{[]results.Profile{{Name: "go-cpu", Top: []profiles.Func{{Name: "main.json", File: "/src/app/main.go", Line: 7, Flat: 5, Share: 0.1}}},
			{Name: "perf-cpu", Top: []profiles.Func{{Name: "main.spin", File: "/src/app/main.go", Line: 31, Flat: 90, Share: 0.32}}}},
			"; 32 % of its CPU in main.spin (main.go:31))"},
		{[]results.Profile{{Name: "go-cpu", Top: []profiles.Func{{Name: "main.json", File: "/src/app/main.go", Line: 7, Flat: 5, Share: 0.1}}},
			{Name: "perf-cpu", Error: "perf is not installed"}}, "; 10 % of its CPU in main.json (main.go:7))"},
		{nil, "1 core)) while load uses"},
	} {
		res := runOf(map[string]fakeJob{
			"application": {raw: []float64{99, 100}, global: 60, cores: 1, host: "srv"},
			"load":        {raw: []float64{20}, global: 20, cores: 8, host: "cli", vars: wrkVars(8, 256, 1), results: wrk(0, 0)},
		})
		res.JobResults.Jobs["application"].Profiles = c.profiles
		got := Diagnose(res, DefaultThresholds())
		if len(got) == 0 || got[0].Kind != ServerBound || !strings.Contains(got[0].Message, c.want) {
			t.Errorf("got %s, want server-bound with %q", show(got), c.want)
		}
	}
}

// A machine the server and the load fill together is machine-saturated; with a CPU profile of
// the server the verdict still says where its CPU went (the capacity knee of a CPU-bound server
// on two cores, where the built-in generator took 14 % of the machine).
func TestMachineSaturatedNamesTheHotFunction(t *testing.T) {
	res := runOf(map[string]fakeJob{
		"application": {raw: []float64{162, 166}, global: 99, cores: 2, host: "box"},
		"load":        {raw: []float64{28}, global: 99, cores: 2, host: "box", vars: wrkVars(1, 16, 1), results: wrk(0, 0)},
	})
	res.JobResults.Jobs["application"].Profiles = []results.Profile{{Name: "perf-cpu",
		Top: []profiles.Func{{Name: "main.spin", File: "/src/app/main.go", Line: 31, Flat: 90, Share: 0.68}}}}
	got := Diagnose(res, DefaultThresholds())
	want := "to find the server's limit; application: 68 % of its CPU in main.spin (main.go:31)"
	if len(got) == 0 || got[0].Kind != MachineSaturated || !strings.Contains(got[0].Message, want) {
		t.Fatalf("got %s, want machine-saturated with %q", show(got), want)
	}
	if strings.Contains(got[0].Message, "load: ") {
		t.Errorf("the load, not profiled, is said to have a hot function: %s", got[0].Message)
	}
}
