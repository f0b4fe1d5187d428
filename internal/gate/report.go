package gate

import (
	"github.com/crankshaft/crankshaft/internal/stats"
)

// Verdict is the outcome of one metric's comparison.
type Verdict string

// The verdicts. A metric of known direction is improved, regressed, unchanged or inconclusive:
// yes, no, or cannot tell (decide). VerdictRegressed fails the gate; VerdictInconclusive fails it
// less (ExitInconclusive) unless something regressed.
const (
	VerdictImproved  Verdict = "improved"
	VerdictRegressed Verdict = "regressed"
	// VerdictUnchanged: the interval of the ratio lies within the threshold both ways, so any
	// change is smaller than the threshold (equivalence), not merely not significant.
	VerdictUnchanged Verdict = "unchanged"
	// VerdictInconclusive: the interval proves neither a change past the threshold nor one within
	// it (or there is no interval: fewer than MinIterations on a side). Comparison.Needed says
	// what would tell.
	VerdictInconclusive Verdict = "inconclusive"
	VerdictChanged      Verdict = "changed (direction unknown)"
	VerdictMissing      Verdict = "missing"
	// VerdictNotMeasured is a figure the tool printed on a side but not as a value to trust (wrk's
	// p99 of 0.00us with pipelining): there is nothing to compare, and the cell says why.
	VerdictNotMeasured Verdict = "not measured"
	// VerdictPerRequest is CPU that went up while the CPU per request did not: more work done, not
	// a regression.
	VerdictPerRequest Verdict = "higher, not per request"
)

// Tests named in a Comparison. Each gives the p-value and the interval from one t.
const (
	TestWelch  = "welch-t"  // Welch's t-test (of the logs when Comparison.Logs)
	TestPaired = "paired-t" // CompareOptions.Paired: iterations that ran side by side
	TestNone   = ""         // fewer than MinIterations on a side: no interval, inconclusive
)

// MinIterations is the fewest iterations each side needs for an interval, hence for a verdict
// other than inconclusive.
const MinIterations = 3

// MaxNeeded caps Comparison.Needed: more iterations per side than this are not a plan.
const MaxNeeded = 1000

// Report is the outcome of comparing results against a base.
type Report struct {
	Files     []string // display names, base first
	Threshold float64
	Alpha     float64 // the gate's: the chance that noise alone fails it
	// Family is how many comparisons can fail the gate together (rows of a known direction, times
	// the heads): each is tested at Alpha / Family and its interval is at 1 - Alpha / Family.
	Family   int
	Paired   bool // the iterations ran side by side (CompareOptions.Paired)
	Services []ServiceReport
	// Warnings say how the results differ besides the change under test (scenario, job,
	// variables, machine) or were taken on a busy machine.
	Warnings []string
	// Busy tells that a result's diagnosis found its machine busy (one of the Warnings).
	Busy bool
	// Unserved tells, for each file (base first), that its diagnosis found the load's good
	// answers were not its application's work (diagnose.Unserved): its figures do not describe
	// the server. A head unserved beside a served base is a regression (the change stopped the
	// application serving); an unserved base leaves every head undecided.
	Unserved []bool
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

// Comparison is one file's value of a metric against the base, and the evidence of its verdict.
type Comparison struct {
	Value   float64
	Present bool
	// NotMeasured says why this side has no value, when its tool printed one not to trust.
	NotMeasured string
	Change      float64 // Value/Base - 1 (±Inf when the base is 0)
	Verdict     Verdict
	Test        string  // TestWelch, TestPaired or TestNone
	PValue      float64 // when Test is not TestNone
	// Ratio is the test's estimate of head/base: the exponential of the difference of the mean
	// logs (Logs), else 1 + the difference of the means over the base's mean. CI is its interval
	// at 1 - alpha, from the same t as PValue: it excludes 1 exactly when PValue < alpha.
	Ratio float64
	CI    stats.Interval
	HasCI bool
	// Logs: the iterations were all positive and the test ran on their logarithms.
	Logs bool
	// Iterations are the base's and this side's iterations (pairs, when paired, are the first).
	Iterations [2]int
	// Needed is, for an inconclusive verdict with an interval, the iterations per side that would
	// likely settle it (MaxNeeded when more); 0 when none can be said. AtThreshold: the estimate
	// sits so near the threshold that only a great many iterations could tell.
	Needed      int
	AtThreshold bool
}

// Regressions lists "service metric" of every regressed comparison, and each head whose
// application stopped serving the load's answers while the base's served them.
func (r Report) Regressions() []string {
	out := r.where(func(_ Row, c Comparison) bool { return c.Verdict == VerdictRegressed })
	if !r.unserved(0) {
		for i := 1; i < len(r.Files); i++ {
			if r.unserved(i) {
				out = append(out, labels(r.Files)[i]+": its application did not serve the load's answers (unserved), the base's did")
			}
		}
	}
	return out
}

// Inconclusive lists "service metric" of every inconclusive comparison of a metric whose
// direction is known: those that can fail the gate (a change of unknown direction never does).
// An unserved base makes the whole comparison undecided: its figures are not its server's.
func (r Report) Inconclusive() []string {
	out := r.where(func(row Row, c Comparison) bool {
		return c.Verdict == VerdictInconclusive && row.Direction != DirectionUnknown
	})
	if r.unserved(0) {
		out = append(out, labels(r.Files)[0]+": the base's application did not serve the load's answers (unserved), so nothing here describes its server")
	}
	return out
}

// RowAlpha is each comparison's significance level: Alpha shared by the Family (Bonferroni).
func (r Report) RowAlpha() float64 { return r.Alpha / float64(max(r.Family, 1)) }

// unserved tells whether file i's diagnosis was unserved.
func (r Report) unserved(i int) bool { return i < len(r.Unserved) && r.Unserved[i] }

func (r Report) where(keep func(Row, Comparison) bool) []string {
	var out []string
	for _, s := range r.Services {
		for _, row := range s.Rows {
			for _, c := range row.Compared {
				if keep(row, c) {
					out = append(out, s.Service+" "+row.Metric)
				}
			}
		}
	}
	return out
}

// Regressed tells whether anything regressed past the threshold with significance.
func (r Report) Regressed() bool { return len(r.Regressions()) > 0 }

// ExitCode is what `crank compare` exits with for this report: ExitRegressed when something
// regressed, else ExitInconclusive when a comparison could not tell, else ExitOK.
func (r Report) ExitCode() int {
	switch {
	case r.unserved(0):
		return ExitInconclusive // whatever the rows say: they compare figures of something else
	case r.Regressed():
		return ExitRegressed
	case len(r.Inconclusive()) > 0:
		return ExitInconclusive
	}
	return ExitOK
}
