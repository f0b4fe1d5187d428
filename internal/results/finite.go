package results

import (
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/measure"
)

// Finite makes every figure of r a finite number, so that the JSON (whose encoder refuses +Inf,
// -Inf and NaN, and so wrote nothing of the run), the tables, the CSV and InfluxDB get the run:
// a figure that is not one (agents' values that overflow when aggregated or reduced, two 1e308
// summed; a derivation of such figures; an iteration's mean) is moved out of the results into
// NotMeasured with why, a generator's into its own NotMeasured, a spread, a precision, a
// threshold's value or a diagnosis figure that is not one is left out, and a sample that is not
// one is dropped from its timeline. It returns what it moved or left out, each naming the service
// and the figure ("load: hostile/huge: ..."), for the user to be told.
func Finite(r *Result) []string {
	notes := FiniteJobs(r.JobResults.Jobs)
	if p := r.Precision; p != nil && !allFinite(p.Mean, p.HalfWidth, p.Relative) {
		notes = append(notes, fmt.Sprintf("precision of %s: its mean or interval is not a finite number; left out", p.Metric))
		r.Precision = nil
	}
	for i, th := range r.Thresholds {
		if th.Found && !allFinite(th.Value) {
			notes = append(notes, fmt.Sprintf("threshold %s %s: the value %v is not a finite number; not found", th.Metric, th.Condition, th.Value))
			r.Thresholds[i].Found, r.Thresholds[i].Pass, r.Thresholds[i].Value = false, false, 0
		}
	}
	for i := range r.JobResults.Diagnostics {
		d := &r.JobResults.Diagnostics[i]
		d.Figures = slices.DeleteFunc(d.Figures, func(f Figure) bool {
			if allFinite(f.Value) {
				return false
			}
			notes = append(notes, fmt.Sprintf("%s: %s: %v left out of the diagnosis %s, not a finite number", f.Service, f.Name, f.Value, d.Kind))
			return true
		})
	}
	return notes
}

// FiniteJobs is Finite for the jobs of one run (or one iteration), the services in name order.
func FiniteJobs(jobs map[string]*JobResult) []string {
	var notes []string
	for _, name := range slices.Sorted(maps.Keys(jobs)) {
		if jr := jobs[name]; jr != nil {
			for _, n := range jr.finite() {
				notes = append(notes, name+": "+n)
			}
		}
	}
	return notes
}

// finite moves the job's figures that are not finite numbers, as Finite says.
func (jr *JobResult) finite() []string {
	var notes []string
	notMeasured := func(name, why string) {
		if jr.NotMeasured == nil {
			jr.NotMeasured = map[string]string{}
		}
		if _, said := jr.NotMeasured[name]; !said {
			jr.NotMeasured[name] = why
			notes = append(notes, name+": not measured: "+why)
		}
	}
	for _, name := range infinite(jr.Results) {
		notMeasured(name, jr.notFinite(name, jr.Results[name]))
		delete(jr.Results, name)
	}
	for _, name := range slices.Sorted(maps.Keys(jr.Values)) {
		if v, ok := jr.Values[name].(float64); ok && !allFinite(v) {
			notMeasured(name, jr.notFinite(name, v))
			delete(jr.Values, name)
		}
	}
	for i, it := range jr.Iterations {
		for _, name := range infinite(it) {
			notMeasured(name, fmt.Sprintf("iteration %d: %s", i+1, jr.notFinite(name, it[name])))
			delete(it, name)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(jr.Spread)) {
		if s := jr.Spread[name]; !allFinite(s.Mean, s.Stdev, s.CV, s.Min, s.Max) {
			notes = append(notes, fmt.Sprintf("%s: its spread over the iterations is not a finite number (stdev %v); left out", name, s.Stdev))
			delete(jr.Spread, name)
		}
	}
	for i := range jr.Generators {
		g := &jr.Generators[i]
		for _, name := range infinite(g.Results) {
			why := jr.notFinite(name, g.Results[name])
			if g.NotMeasured == nil {
				g.NotMeasured = map[string]string{}
			}
			g.NotMeasured[name] = why
			notes = append(notes, fmt.Sprintf("%s on the generator %s: not measured: %s", name, g.Endpoint, why))
			delete(g.Results, name)
		}
	}
	for e, tl := range jr.Measurements {
		dropped := map[string]int{}
		jr.Measurements[e] = slices.DeleteFunc(tl, func(m api.Measurement) bool {
			if allFinite(m.Value) {
				return false
			}
			dropped[m.Name]++
			return true
		})
		for _, name := range slices.Sorted(maps.Keys(dropped)) {
			notes = append(notes, fmt.Sprintf("%s: %d samples of endpoint %d dropped from the timeline, not finite numbers", name, dropped[name], e+1))
		}
	}
	return notes
}

// notFinite says why the figure name is not measured: its value and how it was combined.
func (jr *JobResult) notFinite(name string, v float64) string {
	how := ""
	if md, ok := measure.Default().Lookup(name); ok && md.Source == "Derived" {
		how = " (derived from other figures)"
	} else if i := slices.IndexFunc(jr.Metadata, func(m api.Metadata) bool { return m.Name == name }); i >= 0 {
		how = fmt.Sprintf(" (aggregate %s, reduce %s)", jr.Metadata[i].Aggregate, jr.Metadata[i].Reduce)
	}
	return fmt.Sprintf("%v, not a finite number: the agents' values%s overflow or are undefined when combined", v, how)
}

// infinite lists the names whose values are not finite numbers, in order.
func infinite(values map[string]float64) []string {
	var out []string
	for name, v := range values {
		if !allFinite(v) {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

func allFinite(vs ...float64) bool {
	for _, v := range vs {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}
