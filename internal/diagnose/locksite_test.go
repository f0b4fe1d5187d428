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
