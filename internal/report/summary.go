package report

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/measure"
	"github.com/crankshaft/crankshaft/internal/results"
)

// Summary is one run's headline at the top of the page: what ran where, the diagnosis's verdict
// and the figures a reader asks first. Every figure is a catalog measurement in its catalog
// format and unit.
type Summary struct {
	Label    string
	Scenario string
	Started  string // "2026-11-23 19:12:07 UTC"
	Machine  string
	// Verdict is the diagnosis's verdict kind ("client-bound"), Also the kinds beside it.
	Verdict, VerdictMessage string
	Also                    []string
	// RPS is the load services' http/rps/mean added up; P99 their http/latency/99.
	RPS, P99 string
	// RPSChange and P99Change are crank compare's change and verdict against the first run, for
	// a run with one load service compared with it.
	RPSChange, P99Change *Change
	// CPU is each server's headline CPU (results.MachineCPU), as the diagnosis says it: "46 % of
	// the machine (0.9 of 2 cores)".
	CPU string
	// Note says how the figures were taken when it matters: "mean of 5 iterations", "interrupted".
	Note string
}

// summarize reads a run's summary.
func summarize(label string, r *results.Result) Summary {
	s := Summary{Label: label, Scenario: r.Scenario, Machine: machine(r)}
	if !r.StartTime.IsZero() {
		s.Started = r.StartTime.Format("2006-01-02 15:04:05 MST")
	}
	if len(r.Profiles) > 0 {
		s.Scenario += " (" + strings.Join(r.Profiles, ", ") + ")"
	}
	if v, ok := r.JobResults.Verdict(); ok {
		s.Verdict, s.VerdictMessage = v.Kind, v.Message
		for _, d := range r.JobResults.Diagnostics[1:] {
			s.Also = append(s.Also, d.Kind)
		}
	}
	var loads, servers []string
	for _, name := range slices.Sorted(maps.Keys(r.JobResults.Jobs)) {
		if jr := r.JobResults.Jobs[name]; jr != nil && isLoad(jr) {
			loads = append(loads, name)
		} else if jr != nil {
			servers = append(servers, name)
		}
	}
	var rps float64
	var p99, cpu []string
	for _, name := range loads {
		jr := r.JobResults.Jobs[name]
		rps += jr.Results[measure.RPS]
		if v, ok := jr.Results[measure.Latency99]; ok {
			p99 = append(p99, named(name, len(loads), figure(measure.Latency99, v)))
		}
	}
	if len(loads) > 0 {
		s.RPS = figure(measure.RPS, rps)
	}
	s.P99 = strings.Join(p99, "; ")
	for _, name := range servers {
		jr := r.JobResults.Jobs[name]
		if mean, cores, ok := results.MachineCPU(jr); ok {
			cpu = append(cpu, named(name, len(servers), results.CPUText(mean, cores)))
		}
	}
	s.CPU = strings.Join(cpu, "; ")
	var notes []string
	if n := iterations(r); n > 1 {
		notes = append(notes, fmt.Sprintf("requests/s and latency: mean of %d iterations", n))
		if it := timelineIteration(r); it > 0 {
			notes = append(notes, fmt.Sprintf("CPU and the timelines: the samples of iteration %d of %d", it, n))
		}
	}
	if it := r.Interrupted; it != nil {
		notes = append(notes, fmt.Sprintf("interrupted after %d of %d iteration(s)", it.FinishedIterations, it.Iterations))
	}
	s.Note = strings.Join(notes, "; ")
	return s
}

// named prefixes a figure with its service when the run has several of its kind.
func named(service string, of int, text string) string {
	if of > 1 {
		return service + ": " + text
	}
	return text
}

// figure is a value in its catalog format and unit: "995,581 req/s".
func figure(name string, v float64) string {
	md, ok := measure.Default().Lookup(name)
	if !ok {
		return results.Format(v, "n2")
	}
	return strings.TrimSpace(results.Format(v, md.Format) + " " + md.Unit)
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// iterations is how many iterations the run's results are the means of.
func iterations(r *results.Result) int {
	n := 0
	for _, jr := range r.JobResults.Jobs {
		if jr != nil {
			n = max(n, len(jr.Iterations))
		}
	}
	return n
}

// timelineIteration is the iteration whose samples the run's timelines hold (0: not said).
func timelineIteration(r *results.Result) int {
	for _, jr := range r.JobResults.Jobs {
		if jr != nil && jr.TimelineIteration > 0 {
			return jr.TimelineIteration
		}
	}
	return 0
}

// machine describes the machines the run's services ran on, from their environment: "vm: 2 cores,
// linux/amd64, Intel(R) Xeon(R) Processor"; services on different machines are named.
func machine(r *results.Result) string {
	var order []string
	byDesc := map[string][]string{}
	for _, name := range slices.Sorted(maps.Keys(r.JobResults.Jobs)) {
		jr := r.JobResults.Jobs[name]
		if jr == nil {
			continue
		}
		d := describe(jr.Environment)
		if d == "" {
			continue
		}
		if _, seen := byDesc[d]; !seen {
			order = append(order, d)
		}
		byDesc[d] = append(byDesc[d], name)
	}
	if len(order) == 1 {
		return order[0]
	}
	out := make([]string, len(order))
	for i, d := range order {
		out[i] = strings.Join(byDesc[d], ", ") + " on " + d
	}
	return strings.Join(out, "; ")
}

// describe is one machine's description from a job's environment ("" when it says nothing).
func describe(env map[string]any) string {
	str := func(k string) string { s, _ := env[k].(string); return s }
	var parts []string
	if n, ok := api.Number(env["cores"]); ok && n >= 1 {
		parts = append(parts, plural(int(n), "core"))
	}
	if os, arch := str("os"), str("arch"); os != "" || arch != "" {
		parts = append(parts, strings.Trim(os+"/"+arch, "/"))
	}
	if m := str("cpuModel"); m != "" {
		parts = append(parts, m)
	}
	if n, ok := api.Number(env["memoryMB"]); ok && n > 0 {
		parts = append(parts, results.Format(n, "n0")+" "+measure.UnitMB+" of memory")
	}
	d := strings.Join(parts, ", ")
	if h := str("hostname"); h != "" {
		d = strings.TrimSuffix(h+": "+d, ": ")
	}
	return d
}

// Change is one comparison's change and verdict as crank compare's table has them.
type Change struct {
	Text, Verdict, Class string
}

// withChanges adds to a compared run's summary the change of its load's RPS and p99 against
// the first run, when it has one load service (the summary's figure is then that row's value).
func withChanges(s *Summary, r *results.Result, c Comparison) {
	var loads []string
	for name, jr := range r.JobResults.Jobs {
		if jr != nil && isLoad(jr) {
			loads = append(loads, name)
		}
	}
	if len(loads) != 1 {
		return
	}
	for _, t := range c.Services {
		if t.Service != loads[0] {
			continue
		}
		for _, row := range t.Rows {
			ch := &Change{Text: row.Change, Verdict: row.Verdict, Class: row.Class}
			switch row.Metric {
			case measure.RPS:
				s.RPSChange = ch
			case measure.Latency99:
				s.P99Change = ch
			}
		}
	}
}
