package rounds

import (
	"fmt"
	"strings"

	"github.com/crankshaft/crankshaft/internal/diagnose"
	"github.com/crankshaft/crankshaft/internal/measure"
	"github.com/crankshaft/crankshaft/internal/results"
)

// Disturbance is how the machine was disturbed while a step was measured, read from the step's
// judged result: its diagnosis said machine-busy (other work took diagnose's OtherShare of a
// machine or more; Outside is that share, % of the machine), or its steal (the machines' highest
// mean benchmarks/cpu/steal, %) reached machine-busy's StealShare (Stolen). crank bisect, compare
// --base --head and capacity read it from here, so that "disturbed" means one thing.
type Disturbance struct {
	Busy    bool
	Outside float64
	Steal   float64
	Stolen  bool
}

// outsideFigure is the figure of machine-busy's verdict that gives the share of the machine used
// outside the run.
const outsideFigure = "outside the run"

// DisturbanceOf reads the disturbance from a judged result: machine-busy in its diagnosis
// (res.JobResults.Diagnostics, which the judgement records) and its steal (diagnose.Stolen).
func DisturbanceOf(res *results.Result) Disturbance {
	var d Disturbance
	d.Steal, d.Stolen = diagnose.Stolen(res, diagnose.DefaultThresholds())
	for _, diag := range res.JobResults.Diagnostics {
		if diag.Kind != diagnose.MachineBusy {
			continue
		}
		d.Busy = true
		for _, f := range diag.Figures {
			if f.Name == outsideFigure {
				d.Outside = max(d.Outside, f.Value)
			}
		}
	}
	return d
}

// Disturbed tells whether the machine was disturbed (machine-busy or steal): the step's figures
// may be the machine's as much as the subject's, so it is measured again (Rerun, Again).
func (d Disturbance) Disturbed() bool { return d.Busy || d.Stolen }

// DisturbedPaired tells whether a round of subjects measured side by side, at once, was disturbed:
// only by the hypervisor's steal. Other work on the machine falls on every copy of the round alike
// and the round's paired figures cancel it (docs/BISECT.md: two copies launched together differ by
// 1.2-1.5 % where each moves by 3-4 %), so measuring such a round again would only double a gate's
// time on a shared machine; steal, bursts of which moved a pinned app's requests/s by a third here,
// measures it again, as it did before busy machines were told apart.
func (d Disturbance) DisturbedPaired() bool { return d.Stolen }

// String says how the machine was disturbed ("" when it was not).
func (d Disturbance) String() string {
	var parts []string
	if d.Busy {
		text := "machine busy"
		if d.Outside > 0 {
			text += fmt.Sprintf(": %.0f %% of it used outside the run", d.Outside)
		}
		parts = append(parts, text)
	}
	if d.Stolen {
		parts = append(parts, "the hypervisor took "+results.Value(measure.CPUSteal, d.Steal)+" of the machine (steal)")
	}
	return strings.Join(parts, "; ")
}
