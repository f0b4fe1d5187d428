package results

import (
	"bytes"
	"strings"
	"testing"

	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/measure"
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

// TestEachRateOnce: a tool's own rate that is http/rps/mean's number (wrk's, the built-in
// generator's) is not shown beside it; bombardier's, which is another number, is, saying why it
// differs (issue 48: "http/rps/mean 36,043 beside bombardier/rps/mean 36,536").
func TestEachRateOnce(t *testing.T) {
	jr := &JobResult{Results: map[string]float64{measure.RPS: 36043, measure.WrkRPS: 36043, measure.BuiltinRPS: 36043,
		measure.BombardierRPS: 36536}}
	got := map[string]string{}
	for _, r := range Rows(jr) {
		got[r[0]] = r[1]
	}
	if _, ok := got[measure.WrkRPS]; ok {
		t.Errorf("wrk/rps/mean shown beside http/rps/mean: %v", got)
	}
	if _, ok := got[measure.BuiltinRPS]; ok {
		t.Errorf("builtin/rps/mean shown beside http/rps/mean: %v", got)
	}
	if !strings.HasPrefix(got[measure.RPS], "36,043") {
		t.Errorf("http/rps/mean %q", got[measure.RPS])
	}
	if b := got[measure.BombardierRPS]; !strings.HasPrefix(b, "36,536") || !strings.Contains(b, "not http/rps/mean: bombardier's mean of its per-interval rates") {
		t.Errorf("bombardier/rps/mean %q: want its value and why it is not http/rps/mean", b)
	}
}
