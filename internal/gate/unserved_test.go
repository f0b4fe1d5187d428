package gate

import (
	"strings"
	"testing"

	"github.com/crankshaft/crankshaft/internal/diagnose"
	"github.com/crankshaft/crankshaft/internal/measure"
	"github.com/crankshaft/crankshaft/internal/results"
)

// TestCompareUnserved: a result diagnosed unserved (the load counted answers its application did
// not serve: a gRPC call failing in a 200) is not the server's measurement. Beside a served base, a
// head that became unserved is a regression even though its requests/s look unchanged (exit 1);
// an unserved base leaves the comparison undecided whatever the rows say (exit 3); the warning
// names the file and the diagnosis.
func TestCompareUnserved(t *testing.T) {
	level := scaled(1000, 0.996, 1.004, 1.0, 0.995, 1.005, 1.002, 0.998, 1.0, 1.003, 0.997)
	same := scaled(1000, 1.0, 0.997, 1.003, 0.998, 1.002, 1.0, 0.996, 1.004, 1.001, 0.999)
	fast := scaled(1500, 1.0, 0.997, 1.003, 0.998, 1.002, 1.0, 0.996, 1.004, 1.001, 0.999)
	unserved := results.Diagnostic{Kind: diagnose.Unserved, Message: "the load counted 1,000 good answers/s but application served 0 requests/s"}
	for _, c := range []struct {
		name                   string
		base, head             []float64
		baseUnserved, headDiag bool
		code                   int
		want                   []string
	}{
		{"a served base, an unserved head", level, same, false, true, ExitRegressed, []string{
			"warning: head measured something other than its application: the load counted 1,000 good answers/s",
			"Result: 1 regression(s) beyond 5%: head: its application did not serve the load's answers (unserved), the base's did."}},
		{"an unserved base, a faster head", level, fast, true, false, ExitInconclusive, []string{
			"warning: base measured something other than its application",
			"base: the base's application did not serve the load's answers (unserved), so nothing here describes its server"}},
		{"both served", level, same, false, false, ExitOK, []string{"Result: no regression beyond 5%."}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			b, h := fixedResult(measure.RPS, c.base...), fixedResult(measure.RPS, c.head...)
			if c.baseUnserved {
				b.JobResults.Diagnostics = append(b.JobResults.Diagnostics, unserved)
			}
			if c.headDiag {
				h.JobResults.Diagnostics = append(h.JobResults.Diagnostics, unserved)
			}
			code, out, errOut := runCompare(writeResult(t, dir, "base.json", b), writeResult(t, dir, "head.json", h))
			if code != c.code {
				t.Fatalf("exit %d, want %d:\n%s%s", code, c.code, out, errOut)
			}
			for _, w := range c.want {
				if !strings.Contains(flat(out), w) {
					t.Errorf("stdout lacks %q:\n%s", w, out)
				}
			}
		})
	}
}
