package diagnose

import (
	"strings"
	"testing"

	"github.com/crankshaft/crankshaft/internal/measure"
	"github.com/crankshaft/crankshaft/internal/results"
)

func probeRun(rps float64) *results.Result {
	res := wrk(0, 0)
	res[measure.RPS] = rps
	return runOf(map[string]fakeJob{
		"application": {raw: []float64{14}, global: 12, cores: 2, host: "box"},
		"load":        {raw: []float64{9}, global: 12, cores: 2, host: "box", vars: wrkVars(1, 32, 1), results: res},
	})
}

func TestProbe(t *testing.T) {
	th := DefaultThresholds()
	base := probeRun(980)
	diags := Diagnose(base, th)
	if !NeedsProbe(diags) {
		t.Fatalf("want underloaded before the probe: %s", show(diags))
	}
	flat := Probe(diags, base, probeRun(1010), 32, th)
	if len(flat) != 1 || flat[0].Kind != Serialized ||
		!strings.Contains(flat[0].Message, "32 -> 64 connections: 980 -> 1,010 requests/s, +3%") {
		t.Errorf("flat RPS at 2x connections: %s", show(flat))
	}
	rose := Probe(diags, base, probeRun(1900), 32, th)
	if len(rose) != 1 || rose[0].Kind != Underloaded || !strings.HasSuffix(rose[0].Message, "(checked by a short probe run: 32 -> 64 connections: 980 -> 1,900 requests/s, +94%)") {
		t.Errorf("RPS up at 2x connections: %s", show(rose))
	}
	if diags[0].Kind != Underloaded {
		t.Error("Probe modified its input")
	}
	// On a busy machine a CPU-starved server stays flat too: unreliable stays, with what the probe saw.
	unreliable := []results.Diagnostic{{Kind: Unreliable, Message: "what limited the run cannot be told"}}
	got := Probe(unreliable, base, probeRun(1010), 32, th)
	if got[0].Kind != Unreliable || !strings.HasSuffix(got[0].Message, "+3%, so the load is not what limits the run)") {
		t.Errorf("unreliable, flat: %s", show(got))
	}
	got = Probe(unreliable, base, probeRun(1900), 32, th)
	if got[0].Kind != Unreliable || !strings.HasSuffix(got[0].Message, "+94%, so the load was too light)") {
		t.Errorf("unreliable, rose: %s", show(got))
	}
}
