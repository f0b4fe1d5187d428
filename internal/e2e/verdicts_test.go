package e2e

import (
	"testing"

	"github.com/crankshaft/crankshaft/internal/diagnose"
	"github.com/crankshaft/crankshaft/internal/measure"
	"github.com/crankshaft/crankshaft/internal/results"
)

// The ten cases of issue 24 (3), each on real processes of this machine, 3 measured seconds
// after 1 of warm-up. Nine read their verdict from measured CPU, lock waits or rates: they are in
// verdicts_measure_test.go (make measure, or go test -tags measure ./internal/e2e -run TestVerdict -v).
// The error-bound case (h) holds whatever the machine did, so it stays in the gate.

// rests fails unless the verdict rests on the named figure of the service.
func rests(t *testing.T, d results.Diagnostic, service, name string) results.Figure {
	t.Helper()
	for _, f := range d.Figures {
		if f.Service == service && f.Name == name {
			return f
		}
	}
	t.Errorf("%s rests on no %s %s: %v", d.Kind, service, name, d.Figures)
	return results.Figure{}
}

// (h) A server answering 500 to everything: error-bound, whatever the machine did, no probe.
func TestVerdictErrors(t *testing.T) {
	v := runVerdict(t, 1, diagArgs(t, "fail", "0s", false, "--load.variables.connections", "8")...)
	if v.verdict.Kind != diagnose.ErrorBound || v.probed {
		t.Errorf("verdict %s (probe ran: %v), want error-bound without a probe", v.verdict.Kind, v.probed)
	}
	if f := rests(t, v.verdict, "", measure.BadResponses); f.Value <= 0 {
		t.Errorf("bad responses %v", f.Value)
	}
}
