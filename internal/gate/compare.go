package gate

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/crankshaft/crankshaft/internal/measure"
	"github.com/crankshaft/crankshaft/internal/results"
	"github.com/crankshaft/crankshaft/internal/safewrite"
	"github.com/crankshaft/crankshaft/internal/stats"
)

// Defaults of `crank compare`.
const (
	DefaultThreshold = 0.05
	DefaultAlpha     = 0.05
	DefaultSeed      = 1 // of crank regressions' permutation tests
)

// CompareOptions tune a comparison. Zero values mean the defaults.
type CompareOptions struct {
	Metrics      []string // metrics to compare; empty means the default set (isDefaultMetric)
	Threshold    float64  // smallest relative change that counts
	Alpha        float64  // significance level of the tests; the intervals are at 1 - Alpha
	MarkdownFile string   // when set, a PR-comment table is written there
	BaseName     string   // display names of the two results ("base", "head" when empty)
	HeadName     string
	// Paired: the i-th iteration of base and of head ran at the same time, side by side (crank
	// bisect --side-by-side), so the test is a paired t-test of their ratios (stats.MeanDifference
	// of the differences of their logs), and the interval the paired one: what moved both alike
	// drops out. PairedFitted is the degrees of freedom a model spent on the values before (the
	// positions side by side: their costs taken out, bisect.Unbias), which the test does not count.
	Paired       bool
	PairedFitted int
}

func (o CompareOptions) withDefaults() CompareOptions {
	if o.Threshold <= 0 {
		o.Threshold = DefaultThreshold
	}
	if o.Alpha <= 0 {
		o.Alpha = DefaultAlpha
	}
	if o.BaseName == "" {
		o.BaseName = "base"
	}
	if o.HeadName == "" {
		o.HeadName = "head"
	}
	return o
}

// CompareResults compares head against base, writes the text report to stdout (when not nil) and
// the markdown one to opts.MarkdownFile (when set). An unknown metric is an error.
func CompareResults(base, head *results.Result, opts CompareOptions, stdout io.Writer) (Report, error) {
	opts = opts.withDefaults()
	return compareFiles([]*results.Result{base, head}, []string{opts.BaseName, opts.HeadName}, opts, stdout)
}

func compareFiles(rs []*results.Result, names []string, opts CompareOptions, stdout io.Writer) (Report, error) {
	for _, m := range opts.Metrics {
		found := false
		for _, r := range rs {
			found = found || hasMetric(r, m)
		}
		if !found {
			return Report{}, fmt.Errorf("unknown metric %q: no service of %v reports it", m, names)
		}
	}
	rep := buildReport(rs, names, opts)
	if stdout != nil {
		if err := rep.WriteText(stdout); err != nil {
			return rep, fmt.Errorf("compare: writing the report: %w", err)
		}
	}
	if opts.MarkdownFile != "" {
		if err := writeMarkdownFile(opts.MarkdownFile, rep); err != nil {
			return rep, err
		}
	}
	return rep, nil
}

func writeMarkdownFile(path string, rep Report) error {
	var b bytes.Buffer
	if err := rep.WriteMarkdown(&b); err != nil {
		return fmt.Errorf("markdown %s: %w", path, err)
	}
	if err := safewrite.Replace(path, b.Bytes(), safewrite.Output); err != nil {
		return fmt.Errorf("markdown %s: %w", path, err)
	}
	return nil
}

func buildReport(rs []*results.Result, names []string, opts CompareOptions) Report {
	rep := Report{Files: names, Threshold: opts.Threshold, Alpha: opts.Alpha, Paired: opts.Paired,
		Warnings: warnings(rs, labels(names)), Busy: busy(rs), Unserved: unserved(rs)}
	for _, r := range rs {
		results.Derive(r.JobResults.Jobs)
	}
	svcs := serviceNames(rs)
	jobsOf := make(map[string][]*results.JobResult, len(svcs))
	for _, svc := range svcs {
		jobs := make([]*results.JobResult, len(rs))
		for i, r := range rs {
			jobs[i] = r.JobResults.Jobs[svc]
		}
		jobsOf[svc] = jobs
		for _, m := range metricsOf(jobs, opts.Metrics) {
			rep.Family += testable(jobs, m)
		}
	}
	// Every comparison that can fail the gate is one test of the family: each is judged at
	// Alpha / Family (Bonferroni), so that noise fails a gate of many rows at most Alpha of the time.
	rep.Family = max(rep.Family, 1)
	rowOpts := opts
	rowOpts.Alpha = opts.Alpha / float64(rep.Family)
	for _, svc := range svcs {
		jobs := jobsOf[svc]
		sr := ServiceReport{Service: svc}
		for _, m := range metricsOf(jobs, opts.Metrics) {
			sr.Rows = append(sr.Rows, compareRow(jobs, m, rowOpts))
		}
		cpuPerRequest(sr.Rows)
		if len(sr.Rows) > 0 {
			rep.Services = append(rep.Services, sr)
		}
	}
	return rep
}

// testable counts the heads whose comparison of m with the base can fail the gate: a metric of a
// known direction with MinIterations on both sides.
func testable(jobs []*results.JobResult, m string) int {
	if DirectionOf(m, metadataOf(m, jobs...)) == DirectionUnknown || len(samples(jobs[0], m)) < MinIterations {
		return 0
	}
	n := 0
	for _, jr := range jobs[1:] {
		if len(samples(jr, m)) >= MinIterations {
			n++
		}
	}
	return n
}

// compareRow compares metric m of every job (index 0 is the base) with the base.
func compareRow(jobs []*results.JobResult, m string, opts CompareOptions) Row {
	md := metadataOf(m, jobs...)
	row := Row{Metric: m, Direction: DirectionOf(m, md)}
	if md != nil {
		row.Format, row.Unit = md.Format, md.Unit
	}
	row.Base, row.BasePresent = value(jobs[0], m)
	row.BaseNotMeasured = notMeasured(jobs[0], m)
	baseSamples := samples(jobs[0], m)
	for _, jr := range jobs[1:] {
		c := Comparison{NotMeasured: notMeasured(jr, m)}
		c.Value, c.Present = value(jr, m)
		if !c.Present || !row.BasePresent {
			c.Verdict = VerdictMissing
			if c.NotMeasured != "" || row.BaseNotMeasured != "" {
				c.Verdict = VerdictNotMeasured
			}
			row.Compared = append(row.Compared, c)
			continue
		}
		c.Change = relativeChange(row.Base, c.Value)
		estimate(&c, baseSamples, samples(jr, m), opts)
		c.Verdict = decide(row.Direction, c, opts.Threshold)
		if m == measure.ErrorRate && math.Abs(c.Value-row.Base) < MinErrorRateChange {
			c.Verdict = VerdictUnchanged
		}
		if c.Verdict == VerdictInconclusive {
			c.Needed, c.AtThreshold = needed(c, opts.Threshold)
		}
		row.Compared = append(row.Compared, c)
	}
	return row
}

// MinErrorRateChange is the smallest change of http/requests/error-rate, in percentage points,
// that counts: 0 errors against 0.001% is unchanged, whatever the ratio, with or without iterations.
const MinErrorRateChange = 0.1

// cpuPerRequest turns a CPU regression into VerdictPerRequest when the CPU per request of the same
// file is unchanged or improved: the server did more work, not worse work. A CPU per request that
// cannot tell leaves the regression standing.
func cpuPerRequest(rows []Row) {
	per := slices.IndexFunc(rows, func(r Row) bool { return r.Metric == measure.CPUPerRequest })
	if per < 0 {
		return
	}
	for i := range rows {
		if rows[i].Metric != measure.CPU {
			continue
		}
		for j, c := range rows[i].Compared {
			if c.Verdict == VerdictRegressed && j < len(rows[per].Compared) &&
				(rows[per].Compared[j].Verdict == VerdictUnchanged || rows[per].Compared[j].Verdict == VerdictImproved) {
				rows[i].Compared[j].Verdict = VerdictPerRequest
			}
		}
	}
}

// notMeasured is why jr's tool gave m but not as a value to trust ("" when it did not say).
func notMeasured(jr *results.JobResult, m string) string {
	if jr == nil {
		return ""
	}
	return jr.NotMeasured[m]
}

// value is the metric's reported value, or the mean of its iterations when only those have it.
func value(jr *results.JobResult, m string) (float64, bool) {
	if jr == nil {
		return 0, false
	}
	if v, ok := jr.Results[m]; ok {
		return v, true
	}
	if s := samples(jr, m); len(s) > 0 {
		return stats.Mean(s), true
	}
	return 0, false
}

func relativeChange(base, v float64) float64 {
	switch {
	case base != 0:
		return v/base - 1
	case v == 0:
		return 0
	}
	return math.Copysign(math.Inf(1), v)
}
