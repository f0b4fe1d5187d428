package duet

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/crankshaft/crankshaft/internal/bisect"
	"github.com/crankshaft/crankshaft/internal/gate"
	"github.com/crankshaft/crankshaft/internal/results"
	"github.com/crankshaft/crankshaft/internal/safewrite"
)

// Summary is the gate's answer, written at the root of --json's document as "compare". Relative
// figures are in percent.
type Summary struct {
	Verdict gate.Verdict `json:"verdict"`
	// How is SideBySide or Interleaved; Why says why interleaved.
	How  string        `json:"how"`
	Why  string        `json:"why,omitempty"`
	Base bisect.Commit `json:"base"`
	Head bisect.Commit `json:"head"`
	// Threshold and Alpha are the plan's (percent; a level), Looks the rounds it looked after.
	Threshold float64 `json:"threshold"`
	Alpha     float64 `json:"alpha"`
	Rounds    int     `json:"rounds"`
	MaxRounds int     `json:"maxRounds"`
	Looks     []int   `json:"looks"`
	// Stopped: StopDecided, StopMaxRounds or StopLimit.
	Stopped string   `json:"stopped"`
	Figures []Figure `json:"figures"`
	// Detectable is the smallest regression this run would have called one 95 % of the time.
	Detectable float64 `json:"detectable"`
	// RoundsToTell is, when inconclusive, about how many rounds would tell (0 when nothing can
	// be said).
	RoundsToTell int `json:"roundsToTell,omitempty"`
	// Rerun counts the rounds run again because the machine was disturbed (rounds.Disturbance:
	// interleaved, machine-busy or the host took its CPU, steal; side by side, steal only).
	Rerun int `json:"rerun,omitempty"`
	// Dropped counts the rounds not counted: the hypervisor still took the machine's CPU (steal)
	// once they were run again (Disturbed).
	Dropped int `json:"dropped,omitempty"`
	// BaseJudged and HeadJudged are internal/runner's judgement of each side's latest round, as a
	// run's result has them; they inform (a round no measurement of a side's work ended the gate).
	BaseJudged Judged  `json:"baseJudged"`
	HeadJudged Judged  `json:"headJudged"`
	Seconds    float64 `json:"seconds"`
	// Bisect is the crank bisect command that finds the commit of a regression (with the
	// scenario's options of this command).
	Bisect string `json:"bisect,omitempty"`
}

// Judged is a side's judgement: its diagnosis (the verdict first, with its figures; side by side,
// the round's, whose machine both sides shared) and every threshold checked.
type Judged struct {
	Diagnosis  []results.Diagnostic     `json:"diagnosis,omitempty"`
	Thresholds []results.ThresholdCheck `json:"thresholds,omitempty"`
}

// judgedOf is a side's judgement as its latest round left it (nil: no round).
func judgedOf(res *results.Result) Judged {
	if res == nil {
		return Judged{}
	}
	return Judged{Diagnosis: res.JobResults.Diagnostics, Thresholds: res.Thresholds}
}

// verdictOf is a judgement's verdict kind ("none" without one).
func (j Judged) verdictOf() string {
	if len(j.Diagnosis) == 0 {
		return "none"
	}
	return j.Diagnosis[0].Kind
}

// Figure is one figure's judgement: the sides' means over the rounds (positions taken out), the
// change head/base with its interval at Level, the test's p, the spread of a round's paired
// difference, the power, and what the second position cost; BaseRounds and HeadRounds are the
// figures as measured, a round each.
type Figure struct {
	Service    string       `json:"service"`
	Metric     string       `json:"metric"`
	Unit       string       `json:"unit,omitempty"`
	Base       float64      `json:"base"`
	Head       float64      `json:"head"`
	Change     float64      `json:"change"`
	Low        float64      `json:"low"`
	High       float64      `json:"high"`
	Level      float64      `json:"level"`
	PValue     float64      `json:"pValue"`
	SD         float64      `json:"sd"`
	MDE        float64      `json:"mde"`
	Detectable float64      `json:"detectable"`
	Position   float64      `json:"positionEffect"`
	Fitted     int          `json:"fitted"`
	Verdict    gate.Verdict `json:"verdict"`
	BaseRounds []float64    `json:"baseRounds"`
	HeadRounds []float64    `json:"headRounds"`
}

// summary is the outcome as written.
func (d *duel) summary(o Outcome, baseRun, headRun *bisect.CommitRun) Summary {
	rerun := baseRun.Reruns() + headRun.Reruns()
	if d.how == SideBySide { // a round runs both sides at once: each counts the round run again
		rerun = baseRun.Reruns()
	}
	l := o.Final()
	c := l.Comparison
	fig := bisect.FigureOf(d.metricName())
	f := Figure{Service: d.metric.Service, Metric: d.metric.Metric, Unit: fig.Unit, Base: l.Base, Head: l.Head,
		Change: pct(c.Ratio - 1), Low: pct(c.CI.Low - 1), High: pct(c.CI.High - 1), Level: c.CI.Level, PValue: c.PValue,
		SD: pct(l.SD), MDE: pct(l.MDE), Detectable: pct(l.Detectable), Position: pct(l.Position), Fitted: l.Fitted,
		Verdict: o.Verdict(), BaseRounds: o.Base, HeadRounds: o.Head}
	if len(o.Looks) == 0 { // stopped by the budget before the first look: its level all the same
		f.Level = 1 - d.plan.LookAlpha()
	}
	s := Summary{Verdict: o.Verdict(), How: d.how, Why: d.why, Base: d.base, Head: d.head, Threshold: 100 * d.plan.Threshold,
		Alpha: d.plan.Alpha, Rounds: len(o.Base), MaxRounds: d.plan.MaxRounds, Looks: d.plan.Schedule(), Stopped: o.Stopped,
		Figures: []Figure{f}, Detectable: f.Detectable, Rerun: rerun, Dropped: o.Dropped, Seconds: o.Elapsed.Seconds(),
		BaseJudged: judgedOf(baseRun.Result()), HeadJudged: judgedOf(headRun.Result())}
	if s.Verdict == gate.VerdictInconclusive {
		s.RoundsToTell = c.Needed
	}
	if s.Verdict == gate.VerdictRegressed {
		side := ""
		if d.how == SideBySide {
			side = " --side-by-side"
		}
		s.Bisect = fmt.Sprintf("crank bisect --good %s --bad %s%s --metric %s --precision %g%%", d.base.SHA, d.head.SHA, side, d.metricName(), math.Max(1, s.Threshold))
	}
	return s
}

// pct is a relative figure in percent, 0 for one that is not finite (JSON has no infinity).
func pct(x float64) float64 {
	if math.IsInf(x, 0) || math.IsNaN(x) {
		return 0
	}
	return 100 * x
}

// ExitCode is crank compare's exit status for the verdict: 1 regressed, 3 inconclusive, 0
// otherwise (unchanged, improved).
func (s Summary) ExitCode() int {
	switch s.Verdict {
	case gate.VerdictRegressed:
		return gate.ExitRegressed
	case gate.VerdictInconclusive:
		return gate.ExitInconclusive
	}
	return gate.ExitOK
}

// lookText is a look's line: "+2.3 % [+1.2 %, +3.4 %] at 98.75 %, p 0.0004: regressed".
func lookText(l Look) string {
	c := l.Comparison
	if !c.HasCI {
		return "no interval yet: " + string(c.Verdict)
	}
	return fmt.Sprintf("%+.2f %% [%+.2f %%, %+.2f %%] at %.4g %%, p %.4f: %s",
		100*(c.Ratio-1), 100*(c.CI.Low-1), 100*(c.CI.High-1), 100*c.CI.Level, c.PValue, c.Verdict)
}

// WriteText writes the gate's answer as crank compare --base --head prints it.
func WriteText(w io.Writer, s Summary) {
	f := s.Figures[0]
	name := f.Service + ":" + f.Metric
	fig := bisect.FigureOf(name)
	fmt.Fprintf(w, "compare of %s: base %s %s against head %s %s\n", name, s.Base.Short(), s.Base.Subject, s.Head.Short(), s.Head.Subject)
	how := "side by side: both sides of each round at once, taking the positions in turn"
	if s.How == Interleaved {
		how = "interleaved: one side after the other in each round (A B, then B A), because " + s.Why
	}
	fmt.Fprintf(w, "  how: %s\n", how)
	fmt.Fprintf(w, "  rounds: %d of at most %d (looks after %s rounds, each at %.4g %%); stopped: %s\n",
		s.Rounds, s.MaxRounds, joinInts(s.Looks), 100*f.Level, stoppedText(s.Stopped))
	if s.Rerun > 0 {
		why := "machine-busy or steal"
		if s.How == SideBySide {
			why = "steal: other work falls on both sides alike"
		}
		fmt.Fprintf(w, "  run again: %d rounds during which the machine was disturbed (%s)\n", s.Rerun, why)
	}
	if s.Dropped > 0 {
		fmt.Fprintf(w, "  not counted: %d rounds during which the hypervisor still took the machine's CPU (steal) once run again; none of their figures is in the test below\n", s.Dropped)
	}
	fmt.Fprintf(w, "  diagnosis of the latest round: base %s, head %s\n", s.BaseJudged.verdictOf(), s.HeadJudged.verdictOf())
	second := "the second position"
	if s.How == Interleaved {
		second = "running second in a round"
	}
	fmt.Fprintf(w, "  positions taken out: %s moved the figure %+.2f %% (%d degree of freedom spent)\n", second, f.Position, f.Fitted)
	fmt.Fprintf(w, "  base %s, head %s (means over the rounds, positions out)\n", fig.Value(f.Base), fig.Value(f.Head))
	fmt.Fprintf(w, "  change %+.2f %%, %.4g %% interval [%+.2f %%, %+.2f %%], p %.4f (paired t over %d rounds; a round's spread %.2f %%)\n",
		f.Change, 100*f.Level, f.Low, f.High, f.PValue, s.Rounds, f.SD)
	fmt.Fprintf(w, "  power: a regression of %.2f %% would have been found 95 %% of the time (the test alone: %.2f %%; the threshold %g %%)\n",
		s.Detectable, f.MDE, s.Threshold)
	fmt.Fprintf(w, "verdict: %s\n", s.Verdict)
	switch {
	case s.Verdict == gate.VerdictInconclusive && s.RoundsToTell > 0:
		fmt.Fprintf(w, "  about %d rounds would tell: ask --max-rounds %d (and a --limit of about %s)\n", s.RoundsToTell, s.RoundsToTell,
			perRound(s).Mul(s.RoundsToTell).Round(time.Minute))
	case s.Bisect != "":
		fmt.Fprintf(w, "  to find its commit, with this command's scenario options: %s\n", s.Bisect)
	}
	if s.Verdict == gate.VerdictInconclusive && s.Dropped > 0 {
		fmt.Fprintf(w, "  %d rounds were measured under steal and not counted: a machine whose host gives it its CPU would tell sooner\n", s.Dropped)
	}
}

type seconds float64

// Mul is n rounds at this pace, at least a minute.
func (p seconds) Mul(n int) time.Duration {
	return max(time.Minute, time.Duration(float64(p)*float64(n)*float64(time.Second)))
}

// perRound is the pace of the rounds.
func perRound(s Summary) seconds {
	if s.Rounds == 0 {
		return 0
	}
	return seconds(s.Seconds / float64(s.Rounds))
}

func stoppedText(why string) string {
	switch why {
	case StopDecided:
		return "a look decided"
	case StopMaxRounds:
		return "at --max-rounds"
	case StopLimit:
		return "the time budget (--limit) would be passed by another round"
	}
	return why
}

// writeJSON writes {"compare": ..., "scenario", "startTime"} to --json's file ("-": stdout).
func (d *duel) writeJSON(s Summary) bool {
	doc := struct {
		Scenario  string    `json:"scenario"`
		StartTime time.Time `json:"startTime"`
		Compare   Summary   `json:"compare"`
	}{Scenario: d.c.Plan.Source.Scenario, StartTime: time.Now().UTC().Add(-time.Duration(s.Seconds * float64(time.Second))), Compare: s}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err == nil {
		b = append(b, '\n')
		if d.c.JSON == "-" {
			_, err = d.c.Stdout.Write(b)
		} else if err = safewrite.Replace(d.c.JSON, b, safewrite.Output); err == nil && d.c.Written != nil {
			d.c.Written(d.c.JSON)
		}
	}
	if err != nil {
		fmt.Fprintf(d.c.Stderr, "crank compare: --json %s: %v\n", d.c.JSON, err)
		return false
	}
	return true
}
