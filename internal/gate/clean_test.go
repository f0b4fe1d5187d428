package gate

import (
	"bytes"
	"strings"
	"testing"
)

// TestReportCleansAgentsText: a compared metric's name, its not-measured reason and a warning
// naming a machine (its cpuModel as its agent described it) are printed escaped: no escape
// reaches the terminal, no line is forged (issue 41, LOW).
func TestReportCleansAgentsText(t *testing.T) {
	r := Report{Files: []string{"a.json", "b.json"}, Threshold: 0.05, Alpha: 0.05,
		Services: []ServiceReport{{Service: "load", Rows: []Row{{Metric: "lat\n[x] forged", BaseNotMeasured: "\x1b[2J",
			Compared: []Comparison{{Present: true, Value: 1}}}}}},
		Warnings: []string{"a and b ran on different machines (cpuModel \"\x1b]52;c;aWQK\x07\")"}}
	var b bytes.Buffer
	if err := r.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if strings.ContainsAny(out, "\x1b\x07") || strings.Contains(out, "\n[x] forged") {
		t.Errorf("the report printed an agent's text raw:\n%s", out)
	}
	for _, want := range []string{`lat\n[x] forged`, `not measured: \x1b[2J`, `cpuModel "\x1b]52;c;aWQK\x07"`} {
		if !strings.Contains(out, want) {
			t.Errorf("the report lacks %q:\n%s", want, out)
		}
	}
}
