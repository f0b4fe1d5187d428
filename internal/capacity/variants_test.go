package capacity

import (
	"bytes"
	"strings"
	"testing"
)

// TestCapacitiesCannotTell: the per-variant table gives no capacity nor ratio for a variant whose
// search cannot tell, only its bracket.
func TestCapacitiesCannotTell(t *testing.T) {
	var out bytes.Buffer
	WriteVariants(&out, []Named{
		{Variant: "work=2ms", Result: Result{Rate: 480, FailedAt: 500, VerdictKind: "contention-bound"}},
		{Variant: "work=4ms", Result: Result{Rate: 120, FailedAt: 250, Inconclusive: "250 req/s failed only while the machine was disturbed"}},
	})
	if !strings.Contains(out.String(), "cannot tell (120-250)") || strings.Contains(out.String(), "0.25x") || !strings.Contains(out.String(), "1.00x") {
		t.Errorf("table:\n%s", out.String())
	}
}
