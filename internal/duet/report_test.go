package duet

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/crankshaft/crankshaft/internal/bisect"
	"github.com/crankshaft/crankshaft/internal/gate"
)

// TestExitCodes: crank compare's exit statuses, whatever the path to the verdict.
func TestExitCodes(t *testing.T) {
	for v, want := range map[gate.Verdict]int{gate.VerdictRegressed: 1, gate.VerdictInconclusive: 3, gate.VerdictUnchanged: 0, gate.VerdictImproved: 0} {
		if got := (Summary{Verdict: v}).ExitCode(); got != want {
			t.Errorf("%s: exit %d, want %d", v, got, want)
		}
	}
}

// TestDetectableTheBadWay: for a throughput the smallest regression is a fall (under 100 %), for
// a cost a rise, of the same size on the log scale.
func TestDetectableTheBadWay(t *testing.T) {
	if got := badWay(gate.HigherIsBetter, math.Log(2)); math.Abs(got-0.5) > 1e-12 {
		t.Errorf("higher is better, log 2: %g, want a fall of 0.5", got)
	}
	if got := badWay(gate.LowerIsBetter, math.Log(2)); math.Abs(got-1) > 1e-12 {
		t.Errorf("lower is better, log 2: %g, want a rise of 1", got)
	}
}

// TestWriteTextSaysWhatItFound: how the sides ran and why, the rounds and looks, the positions,
// the interval, the power, the verdict and what would tell.
func TestWriteTextSaysWhatItFound(t *testing.T) {
	s := Summary{Verdict: gate.VerdictInconclusive, How: Interleaved, Why: "asked (--interleaved)",
		Base: bisect.Commit{SHA: "aaaaaaaaaaaa", Subject: "base"}, Head: bisect.Commit{SHA: "bbbbbbbbbbbb", Subject: "head"},
		Threshold: 1, Rounds: 40, MaxRounds: 40, Looks: []int{6, 17, 29, 40}, Stopped: StopMaxRounds, Detectable: 1.8,
		RoundsToTell: 90, Seconds: 400, Dropped: 2, Figures: []Figure{{Service: "application", Metric: "benchmarks/cpu/per-request",
			Base: 0.025, Head: 0.0252, Change: 0.8, Low: -0.2, High: 1.8, Level: 0.9875, PValue: 0.04, SD: 1.5, MDE: 1.2, Position: 3}}}
	var b bytes.Buffer
	WriteText(&b, s)
	for _, want := range []string{"how: interleaved: one side after the other in each round (A B, then B A), because asked (--interleaved)",
		"rounds: 40 of at most 40 (looks after 6, 17, 29, 40 rounds, each at 98.75 %); stopped: at --max-rounds",
		"running second in a round moved the figure +3.00 %", "98.75 % interval [-0.20 %, +1.80 %], p 0.0400",
		"a regression of 1.80 % would have been found 95 % of the time", "verdict: inconclusive",
		"about 90 rounds would tell: ask --max-rounds 90 (and a --limit of about 15m0s)",
		"not counted: 2 rounds during which the hypervisor still took the machine's CPU (steal) once run again",
		"2 rounds were measured under steal and not counted"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the text lacks %q:\n%s", want, b.String())
		}
	}
}
