package gate

import (
	"strings"
	"testing"

	"github.com/crankshaft/crankshaft/internal/stats"
)

// TestBisectCommandOfAChangePoint: a regression's finding carries the commits on both sides of its
// change point, and crank regressions prints the crank bisect command that looks into it.
func TestBisectCommandOfAChangePoint(t *testing.T) {
	k := seriesKey{metric: "http/rps/mean"}
	k.scenario, k.service = "plaintext", "load"
	s := &series{key: k, dir: HigherIsBetter, points: []*histPoint{{commit: "aaa111"}, {commit: "bbb222"}, {commit: "ccc333"}}}
	f := finding(s, stats.ChangePoint{Index: 2, Before: 100, After: 80, Change: -0.2})
	if f.GoodCommit != "bbb222" || f.Commit != "ccc333" || !f.Regression {
		t.Fatalf("finding %+v", f)
	}
	want := "bin/crank bisect --config SCENARIO.yml --scenario plaintext --good bbb222 --bad ccc333 --metric load:http/rps/mean"
	if got := f.BisectCommand(); got != want {
		t.Errorf("command %q, want %q", got, want)
	}
	var b strings.Builder
	if err := (History{Findings: []Finding{f}}).WriteText(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), want) {
		t.Errorf("crank regressions does not print it:\n%s", b.String())
	}
	f.Regression = false
	if f.BisectCommand() != "" {
		t.Error("an improvement got a bisect command")
	}
}
