package gate

import (
	"github.com/crankshaft/crankshaft/internal/stats"
)

// Verdict is the outcome of one metric's comparison.
type Verdict string

// The verdicts. Only VerdictRegressed fails the gate.
const (
	VerdictImproved       Verdict = "improved"
	VerdictRegressed      Verdict = "regressed"
	VerdictNoChange       Verdict = "no change"
	VerdictNotSignificant Verdict = "not significant"
	VerdictChanged        Verdict = "changed (direction unknown)"
	VerdictMissing        Verdict = "missing"
	// VerdictNotMeasured is a figure the tool printed on a side but not as a value to trust (wrk's
	// p99 of 0.00us with pipelining): there is nothing to compare, and the cell says why.
	VerdictNotMeasured Verdict = "not measured"
	// VerdictPerRequest is CPU that went up while the CPU per request did not: more work done, not
	// a regression.
	VerdictPerRequest Verdict = "higher, not per request"
)

// Tests named in a Comparison.
const (
	TestMannWhitney = "mann-whitney"
	TestWelch       = "welch"
	TestPaired      = "paired-t" // CompareOptions.Paired: iterations that ran side by side
	TestNone        = ""         // fewer than MinIterations on a side: threshold alone
)

// MinIterations is the fewest iterations each side needs for a significance test.
const MinIterations = 3

// Report is the outcome of comparing results against a base.
type Report struct {
	Files     []string // display names, base first
	Threshold float64
	Alpha     float64
	Services  []ServiceReport
	// Warnings say how the results differ besides the change under test (scenario, job,
	// variables, machine) or were taken on a busy machine.
	Warnings []string
}

// ServiceReport holds one service's rows.
type ServiceReport struct {
	Service string
	Rows    []Row
}

// Row is one metric of one service: the base value and each other file's comparison with it.
type Row struct {
	Metric      string
	Direction   Direction
	Format      string // the metadata's number format ("n0", "n2"), may be empty
	Unit        string // the metadata's unit, may be empty
	Base        float64
	BasePresent bool
	// BaseNotMeasured says why the base has no value, when its tool printed one not to trust.
	BaseNotMeasured string
	Compared        []Comparison
}

// Comparison is one file's value of a metric against the base.
type Comparison struct {
	Value   float64
	Present bool
	// NotMeasured says why this side has no value, when its tool printed one not to trust.
	NotMeasured string
	Change      float64 // Value/Base - 1 (±Inf when the base is 0)
	Verdict     Verdict
	Test        string  // TestMannWhitney, TestWelch, TestPaired or TestNone
	PValue      float64 // when Test is not TestNone
	CI          stats.Interval
	HasCI       bool
	// FellBack is set when Mann-Whitney could not reach alpha with these iteration counts and
	// Welch's t-test was used instead.
	FellBack bool
}

// Regressions lists "service metric" of every regressed comparison.
func (r Report) Regressions() []string {
	var out []string
	for _, s := range r.Services {
		for _, row := range s.Rows {
			for _, c := range row.Compared {
				if c.Verdict == VerdictRegressed {
					out = append(out, s.Service+" "+row.Metric)
				}
			}
		}
	}
	return out
}

// Regressed tells whether anything regressed past the threshold with significance.
func (r Report) Regressed() bool { return len(r.Regressions()) > 0 }

// ExitCode is what `crank compare` exits with for this report: 1 when something regressed.
func (r Report) ExitCode() int {
	if r.Regressed() {
		return 1
	}
	return 0
}
