package results

import (
	"bytes"
	"strings"
	"testing"

	"github.com/crankshaft/crankshaft/internal/api"
)

// TestTablesCleanAgentsText: a measurement name with a newline and a table row forged a row, and
// escapes in names, reasons and text values reached the terminal; the table prints them escaped
// (issue 41, LOW).
func TestTablesCleanAgentsText(t *testing.T) {
	jr := &JobResult{Results: map[string]float64{"lat\n| forged | 1 | ms |": 1},
		Metadata:    []api.Metadata{{Name: "lat\n| forged | 1 | ms |", Format: "n0"}},
		NotMeasured: map[string]string{"gone": "the tool said \x1b[2J"},
		Values:      map[string]any{"cpuModel": "=cmd\x1b]52;c;aWQK\x07"}}
	var b bytes.Buffer
	if err := WriteTables(&b, &Result{JobResults: JobResults{Jobs: map[string]*JobResult{"load": jr}}}, []string{"load"}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if strings.ContainsAny(out, "\x1b\x07") || strings.Contains(out, "\n| forged") {
		t.Errorf("the table printed an agent's text raw:\n%s", out)
	}
	for _, want := range []string{`| lat\n| forged | 1 | ms |`, `not measured: the tool said \x1b[2J`, `=cmd\x1b]52;c;aWQK\x07`} {
		if !strings.Contains(out, want) {
			t.Errorf("the table lacks %q:\n%s", want, out)
		}
	}
}
