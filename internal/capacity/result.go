package capacity

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/crankshaft/crankshaft/internal/diagnose"
	"github.com/crankshaft/crankshaft/internal/measure"
	"github.com/crankshaft/crankshaft/internal/results"
	"github.com/crankshaft/crankshaft/internal/threshold"
)

// Result is the search's answer, written at the root of the result JSON as "capacity".
type Result struct {
	// Rate is the capacity: the highest rate asked that met every SLO with the generator keeping
	// up (req/s); 0 when none did.
	Rate float64 `json:"rate"`
	// FailedAt is the lowest rate above it that failed (0 when none failed), and FailedSLO what
	// failed there.
	FailedAt  float64  `json:"failedAt,omitempty"`
	FailedSLO []string `json:"failedSlo,omitempty"`
	// SLOs are the objectives, as written.
	SLOs []string `json:"slos"`
	// Verdict explains the knee: what limits the server there, in the diagnosis' words.
	Verdict string `json:"verdict,omitempty"`
	// VerdictKind is the diagnosis' kind at the knee (contention-bound, server-bound...).
	VerdictKind string `json:"verdictKind,omitempty"`
	// Stopped says why the search ended before the precision was reached.
	Stopped string `json:"stopped,omitempty"`
	Steps   []Step `json:"steps"`
	knee    int
}

// Knee is the step that failed just above the capacity, if any.
func (r Result) Knee() (Step, bool) {
	if r.FailedAt == 0 || r.knee >= len(r.Steps) {
		return Step{}, false
	}
	return r.Steps[r.knee], true
}

// Step is one rate tried: what was asked, what came back, and the server's state.
type Step struct {
	Asked    float64 `json:"asked"`
	Achieved float64 `json:"achieved"`
	// FellBehind: the generator completed less than MinAchieved of the rate asked, so the step
	// cannot pass whatever its latency.
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
	// says it reached machine-busy's StealShare: a failure then may be the host's, and the step
	// is measured again even when the generator fell behind.
	Steal  float64 `json:"steal,omitempty"`
	Stolen bool    `json:"stolen,omitempty"`
	// Repeated: the step failed on the SLOs alone while the generator kept up, or failed while
	// Stolen, so the same rate was measured again (the next step, Repeat), whose verdict stands
	// for the rate.
	Repeated bool `json:"repeated,omitempty"`
	Repeat   bool `json:"repeat,omitempty"`
}

// MinAchieved is the share of the asked rate a generator must complete for a step to count
// (Nighthawk's send-rate predicate).
const MinAchieved = 0.95

// Judge makes a step of one pass's results: the load's figures (summed over load services), the
// servers' (services that do not wait for exit: loads names those that do), and every SLO checked.
func Judge(asked float64, jobs map[string]*results.JobResult, loads map[string]bool, slos []threshold.Threshold) Step {
	s := Step{Asked: asked}
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
	s.FellBehind = s.Achieved < MinAchieved*asked
	res := &results.Result{JobResults: results.JobResults{Jobs: jobs}}
	s.Steal, s.Stolen = diagnose.Stolen(res, diagnose.DefaultThresholds())
	for _, c := range threshold.Check(res, slos) {
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
	if s.FellBehind {
		s.Failed = append(s.Failed, fmt.Sprintf("the generator fell behind: %.0f of %.0f req/s asked (under %.0f %%)", s.Achieved, asked, 100*MinAchieved))
	}
	s.Pass = len(s.Failed) == 0
	return s
}

// Summary is the answer in one line.
func (r Result) Summary() string {
	var b strings.Builder
	switch {
	case r.Rate == 0:
		fmt.Fprintf(&b, "capacity: none: every rate tried failed (%s)", strings.Join(r.FailedSLO, "; "))
	case r.FailedAt == 0:
		fmt.Fprintf(&b, "capacity: at least %s (no rate tried failed)", Rate(r.Rate))
	default:
		fmt.Fprintf(&b, "capacity: %s within %s (%s failed: %s)", Rate(r.Rate), strings.Join(r.SLOs, ", "), Rate(r.FailedAt), strings.Join(r.FailedSLO, "; "))
	}
	if r.Verdict != "" {
		b.WriteString("\nat the knee: " + r.Verdict)
	}
	if r.Stopped != "" {
		b.WriteString("\nstopped early: " + r.Stopped)
	}
	return b.String()
}

// MaxDrain bounds the wait after a step.
const MaxDrain = 10 * time.Second

// Drain is how long to leave a server kept running after a step before the next one: the queue a
// step that fell behind left (the requests asked but not done, at the rate it did manage), plus its
// p99, so that the next step does not start behind another's backlog. 0 after a step that kept up
// with a small p99.
func Drain(s Step, stepSeconds float64) time.Duration {
	backlog := max(s.Asked-s.Achieved, 0) * stepSeconds
	secs := s.Latency99 / 1000
	if s.Achieved > 0 {
		secs += backlog / s.Achieved
	}
	if !s.FellBehind && secs < 0.1 {
		return 0
	}
	return min(time.Duration(secs*float64(time.Second)), MaxDrain)
}
