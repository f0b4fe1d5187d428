package main

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/crankshaft/crankshaft/internal/measure"
	"github.com/crankshaft/crankshaft/internal/results"
)

// benchScenario is the scenario of the bench's results: crank compare warns when two results'
// scenarios differ.
const benchScenario = "make bench"

// benchResult is the report's comparison tables as a crank result (docs/PERFORMANCE.json), so that
// `crank compare` and `crank regressions` read them: one job per row, named by its subject and mode
// (rowService), whose iterations are the bench runs (each with its servers started afresh: rounds
// of one run share the servers' state, so they are not independent, and a comparison that took
// them for iterations would find differences in noise). Each run has the row's CPU per request
// (measure.BenchCPUPerRequest), its kernel share (measure.BenchKernelShare) and its ratio to the
// reference (measure.BenchRatio), the medians of
// the run's rounds; the results are the tables' figures (medians of all rounds, pooled), the spread
// their mean, stdev, min and max. The description and each job's environment say the commit. A reference's own row has no ratio (it would be 1 by
// definition); a row without a figure says why under notMeasured. The agent's and crank's
// overhead sections are not in it. A row name given twice is an error.
func benchResult(r *report) (*results.Result, error) {
	// The commit is not a property: properties name a run's variant, and each commit's runs would
	// make a series of their own for crank regressions (influx.VariantOf).
	res := &results.Result{StartTime: r.Date, Scenario: benchScenario,
		Description: fmt.Sprintf("make bench at commit %s on %s", r.Commit, r.Date.UTC().Format(time.RFC3339)),
		JobResults:  results.JobResults{Jobs: map[string]*results.JobResult{}, Properties: map[string]string{}}}
	if r.Warning != "" {
		res.Description += ". " + r.Warning
	}
	for _, c := range r.Comparisons {
		for _, rr := range c.Results {
			name := rowService(rr.row)
			if _, dup := res.JobResults.Jobs[name]; dup {
				return nil, fmt.Errorf("bench result: job %q (%s, %s in %q) is named twice", name, rr.Subject, rr.Mode, c.Title)
			}
			res.JobResults.Jobs[name] = rowJob(r, c, rr)
		}
	}
	return res, nil
}

// rowJob is one row as a job result.
func rowJob(r *report, c comparison, rr rowResult) *results.JobResult {
	jr := &results.JobResult{Results: map[string]float64{}, NotMeasured: map[string]string{},
		Environment: map[string]any{"commit": r.Commit, "os": r.Machine.OS, "arch": r.Machine.Arch, "cpuModel": r.Machine.CPUModel,
			"cores": r.Machine.Cores, "kernel": r.Machine.Kernel, "undisturbedOnly": rr.Clean,
			// what a system call cost before and after (syscallCost): the unpipelined ratios move with it
			"syscallNsBefore": r.SyscallBefore.Nanoseconds(), "syscallNsAfter": r.SyscallAfter.Nanoseconds()},
		Variables: map[string]any{"comparison": c.Title, "subject": rr.Subject, "mode": rr.Mode, "reference": rr.Reference,
			"side": c.Side, "seconds": r.Config.seconds, "connections": r.Config.connections, "pipeline": r.Config.pipeline}}
	if rr.Target > 0 {
		jr.Variables["target"] = rr.Target
	}
	if !math.IsNaN(rr.HalfWidth) && rr.Subject != rr.Reference {
		jr.Variables["ratioHalfWidth"] = rr.HalfWidth // the pooled ratio's 95 % interval, as a share of it
	}
	cat := measure.Default()
	names := []string{measure.BenchCPUPerRequest, measure.BenchKernelShare}
	withRatio := rr.Subject != rr.Reference
	if withRatio {
		names = append(names, measure.BenchRatio)
	}
	for _, name := range names {
		md, _ := cat.Lookup(name)
		jr.Metadata = append(jr.Metadata, md)
	}
	if rr.Skipped != "" {
		for _, name := range names {
			jr.NotMeasured[name] = rr.Skipped
		}
		return jr
	}
	for _, f := range rr.Runs {
		it := map[string]float64{measure.BenchCPUPerRequest: f.US}
		if !math.IsNaN(f.Kernel) {
			it[measure.BenchKernelShare] = f.Kernel
		}
		if withRatio && !math.IsNaN(f.Ratio) { // the reference ran in that run's rounds
			it[measure.BenchRatio] = f.Ratio
		}
		jr.Iterations = append(jr.Iterations, it)
	}
	if len(jr.Iterations) > 0 {
		jr.Results[measure.BenchCPUPerRequest] = rr.Median
	} else {
		jr.NotMeasured[measure.BenchCPUPerRequest] = fmt.Sprintf("no valid run of %s, %s", rr.Subject, rr.Mode)
	}
	if !math.IsNaN(rr.KernelShare) { // the median of the rounds whose Kernel the iterations hold
		jr.Results[measure.BenchKernelShare] = rr.KernelShare
	} else {
		jr.NotMeasured[measure.BenchKernelShare] = fmt.Sprintf("no round of %s, %s counted a CPU tick", rr.Subject, rr.Mode)
	}
	if withRatio {
		if !math.IsNaN(rr.Ratio) {
			jr.Results[measure.BenchRatio] = rr.Ratio
		} else {
			jr.NotMeasured[measure.BenchRatio] = fmt.Sprintf("no round with valid runs of both %s and %s, %s", rr.Subject, rr.Reference, rr.Mode)
		}
	}
	if len(jr.Iterations) > 0 {
		jr.Spread = results.Spreads(jr.Iterations)
	}
	return jr
}

// rowService names a row's job: its subject and mode in lower case, runs of anything but letters
// and digits as one '-' ("crank load", "h2c 28 x 70" -> "crank-load-h2c-28-x-70").
func rowService(r row) string {
	var b strings.Builder
	dash := false
	for _, ch := range strings.ToLower(r.Subject + " " + r.Mode) {
		if ch >= 'a' && ch <= 'z' || ch >= '0' && ch <= '9' {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(ch)
			dash = false
			continue
		}
		dash = true
	}
	return b.String()
}
