package capacity

import (
	"fmt"
	"strings"
	"time"

	"github.com/crankshaft/crankshaft/internal/results"
)

// Result is the search's answer, written at the root of the result JSON as "capacity".
type Result struct {
	// Rate is the capacity: the highest rate asked that met every SLO with the generator keeping
	// up (req/s); 0 when none did.
	Rate float64 `json:"rate"`
	// FailedAt is the lowest rate above it that failed (0 when none failed), and FailedSLO what
	// failed there. Rate and FailedAt are the bracket: the capacity lies between them.
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
	// Inconclusive says why the search cannot tell the capacity ("" when it can): steps that
	// contradict each other, the bracket's upper end failing only on a disturbed machine, or a
	// search stopped before its bracket was within the precision. WouldTell is what would.
	Inconclusive string `json:"inconclusive,omitempty"`
	WouldTell    string `json:"wouldTell,omitempty"`
	Steps        []Step `json:"steps"`
	knee         int
}

// Knee is the step that failed just above the capacity (the last measure of that rate that
// failed), with its index in Steps, if any.
func (r Result) Knee() (Step, int, bool) {
	if r.FailedAt == 0 || r.knee >= len(r.Steps) {
		return Step{}, 0, false
	}
	return r.Steps[r.knee], r.knee, true
}

// Bracket is the capacity's uncertainty in words: "capacity between X and Y req/s" (or at least
// X, or below Y, when an end is missing).
func (r Result) Bracket() string {
	switch {
	case r.Rate > 0 && r.FailedAt > 0:
		return fmt.Sprintf("capacity between %s and %s", results.Format(r.Rate, "n0"), Rate(r.FailedAt))
	case r.Rate > 0:
		return "capacity at least " + Rate(r.Rate)
	case r.FailedAt > 0:
		return "capacity below " + Rate(r.FailedAt)
	}
	return "capacity unknown: no rate passed or failed for certain"
}

// Summary is the answer in one line, then the bracket, the knee's verdict and why the search
// stopped or cannot tell.
func (r Result) Summary() string {
	var b strings.Builder
	switch {
	case r.Inconclusive != "":
		fmt.Fprintf(&b, "capacity: cannot tell: %s\n%s as measured\nwhat would tell: %s", r.Inconclusive, r.Bracket(), r.WouldTell)
	case r.Rate == 0:
		fmt.Fprintf(&b, "capacity: none: every rate tried failed (%s)", strings.Join(r.FailedSLO, "; "))
	case r.FailedAt == 0:
		fmt.Fprintf(&b, "capacity: at least %s (no rate tried failed)", Rate(r.Rate))
	default:
		fmt.Fprintf(&b, "capacity: %s within %s (%s failed: %s)\n%s", Rate(r.Rate), strings.Join(r.SLOs, ", "), Rate(r.FailedAt),
			strings.Join(r.FailedSLO, "; "), r.Bracket())
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
