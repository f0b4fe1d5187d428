package capacity

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/crankshaft/crankshaft/internal/measure"
	"github.com/crankshaft/crankshaft/internal/results"
	"github.com/crankshaft/crankshaft/internal/rounds"
)

// Step is one rate tried: what was asked, what came back, and the server's state.
type Step struct {
	Asked    float64 `json:"asked"`
	Achieved float64 `json:"achieved"`
	// FellBehind: the generator completed less than MinAchieved of the rate asked, so the step
	// cannot pass whatever its latency (which counts only the requests it sent).
	FellBehind bool    `json:"fellBehind,omitempty"`
	Latency50  float64 `json:"latency50"`
	Latency90  float64 `json:"latency90"`
	Latency99  float64 `json:"latency99"`
	ErrorRate  float64 `json:"errorRate"`
	// ServerCPU is the servers' mean CPU over the step, % of the machine (benchmarks/cpu).
	ServerCPU      float64  `json:"serverCpu"`
	LockContention float64  `json:"lockContention,omitempty"`
	Exceptions     float64  `json:"exceptions,omitempty"`
	Pass           bool     `json:"pass"`
	Failed         []string `json:"failed,omitempty"`
	// Steal is the machines' highest mean steal over the step (benchmarks/cpu/steal, %); Stolen
	// says it reached machine-busy's StealShare.
	Steal  float64 `json:"steal,omitempty"`
	Stolen bool    `json:"stolen,omitempty"`
	// Busy: the step's diagnosis said machine-busy (other work took OtherShare of a machine or
	// more); Outside is that share, % of the machine.
	Busy    bool    `json:"busy,omitempty"`
	Outside float64 `json:"outside,omitempty"`
	// Repeated: the same rate was measured again after this step; Repeat: this step measured a rate
	// again, for the reason Again says.
	Repeated bool   `json:"repeated,omitempty"`
	Repeat   bool   `json:"repeat,omitempty"`
	Again    string `json:"again,omitempty"`
	// Diagnosis and Thresholds are the step's judgement as internal/runner made it, as a run's
	// result has them: the verdict with its figures, and every SLO checked.
	Diagnosis  []results.Diagnostic     `json:"diagnosis,omitempty"`
	Thresholds []results.ThresholdCheck `json:"thresholds,omitempty"`
}

// MinAchieved is the share of the asked rate a generator must complete for a step to count
// (Nighthawk's send-rate predicate).
const MinAchieved = 0.95

// Judge makes a step of one pass's results as internal/runner judged them, as it judges every
// run (runner.Prepared.Step): the SLOs are the step's thresholds (res.Thresholds), the machine's
// disturbance is read from the step's diagnosis (res.JobResults.Diagnostics: machine-busy) and its
// steal (diagnose.Stolen), and failures are the run's other failures (runner.RunFailures: failed
// requests above --max-error-rate, a generator of a split load behind). To those the search adds
// its own rule: the generator completed MinAchieved of the rate asked. The figures are the
// load's (summed over load services) and the servers' (services that do not wait for exit: loads
// names those that do).
func Judge(asked float64, res *results.Result, failures []string, loads map[string]bool) Step {
	s := Step{Asked: asked, Diagnosis: res.JobResults.Diagnostics, Thresholds: res.Thresholds}
	s.figures(res.JobResults.Jobs, loads)
	s.FellBehind = s.Achieved < MinAchieved*asked
	s.judgeMachine(res)
	for _, c := range res.Thresholds {
		if c.Pass {
			continue
		}
		value := "not reported"
		if c.Found {
			value = strconv.FormatFloat(math.Round(c.Value*1000)/1000, 'f', -1, 64)
		}
		target := c.Metric
		if c.Service != "" {
			target = c.Service + ": " + c.Metric
		}
		s.Failed = append(s.Failed, fmt.Sprintf("%s %s (%s)", target, c.Condition, value))
	}
	s.Failed = append(s.Failed, failures...)
	if s.FellBehind {
		s.Failed = append(s.Failed, fmt.Sprintf("the generator fell behind: completed %s of %s asked (under %.0f %%); its latency counts only the requests it sent",
			results.Format(s.Achieved, "n0"), Rate(asked), 100*MinAchieved))
	}
	s.Pass = len(s.Failed) == 0
	return s
}

// figures are the step's figures: the load's, summed over load services, and the servers'.
func (s *Step) figures(jobs map[string]*results.JobResult, loads map[string]bool) {
	for name, jr := range jobs {
		if jr == nil {
			continue
		}
		if loads[name] {
			s.Achieved += jr.Results[measure.RPS]
			s.Latency50 = max(s.Latency50, jr.Results[measure.Latency50])
			s.Latency90 = max(s.Latency90, jr.Results[measure.Latency90])
			s.Latency99 = max(s.Latency99, jr.Results[measure.Latency99])
			s.ErrorRate = max(s.ErrorRate, jr.Results[measure.ErrorRate])
			continue
		}
		if cpu, ok := results.MeasuredMean(jr, measure.CPU); ok {
			s.ServerCPU += cpu
		}
		s.LockContention += jr.Results[measure.LockContention]
		s.Exceptions += jr.Results[measure.ExceptionCount]
	}
}

// judgeMachine reads the step's disturbance from its judgement, as crank bisect and compare read
// a round's (rounds.DisturbanceOf: machine-busy in the diagnosis, with the share of the machine
// used outside the run, and the steal).
func (s *Step) judgeMachine(res *results.Result) {
	d := rounds.DisturbanceOf(res)
	s.Busy, s.Outside, s.Steal, s.Stolen = d.Busy, d.Outside, d.Steal, d.Stolen
}

// machine is the step's disturbance as recorded.
func (s Step) machine() rounds.Disturbance {
	return rounds.Disturbance{Busy: s.Busy, Outside: s.Outside, Steal: s.Steal, Stolen: s.Stolen}
}

// Disturbed tells whether the machine was disturbed during the step (machine-busy or steal): a
// failure then may be the machine's, not the server's. A pass stands: other work only takes from
// the server and the generator, so a step that passed beside it would pass without it.
func (s Step) Disturbed() bool { return s.machine().Disturbed() }

// Disturbance says how the machine was disturbed during the step ("" when it was not).
func (s Step) Disturbance() string { return s.machine().String() }

// Outcome is a step's verdict as the tables write it: pass or FAIL, with what the verdict needs
// said beside it: a generator that fell behind (what it completed of the rate asked, and whether
// that alone failed the step), a disturbed machine, and why the rate was measured again.
func (s Step) Outcome() string {
	verdict := "pass"
	if !s.Pass {
		verdict = "FAIL"
	}
	var notes []string
	if s.FellBehind {
		completed := "completed " + results.Format(s.Achieved, "n0") + " of " + Rate(s.Asked) + " asked"
		if len(s.Failed) == 1 {
			completed = "fell behind only: " + completed
		}
		notes = append(notes, completed)
	}
	if d := s.Disturbance(); d != "" {
		notes = append(notes, d)
	}
	switch {
	case s.Repeat && s.Again != "":
		notes = append(notes, "measured again: "+s.Again)
	case s.Repeat: // a file from a crank that did not say why
		notes = append(notes, "measured again")
	}
	if len(notes) == 0 {
		return verdict
	}
	return verdict + " (" + strings.Join(notes, "; ") + ")"
}
