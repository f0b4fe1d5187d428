package results

import (
	"fmt"
	"io"
	"math"
	"slices"
	"sort"

	"github.com/crankshaft/crankshaft/internal/stats"
)

// Spread describes one result's values over a run's iterations.
type Spread struct {
	N     int     `json:"n"`
	Mean  float64 `json:"mean"`
	Stdev float64 `json:"stdev"` // sample standard deviation (0 with one value)
	CV    float64 `json:"cv"`    // stdev / |mean| in percent (0 when the mean is 0)
	Min   float64 `json:"min"`
	Max   float64 `json:"max"`
}

// SpreadOf describes values (which must not be empty).
func SpreadOf(values []float64) Spread {
	s := Spread{N: len(values), Mean: stats.Mean(values), Stdev: stats.StdDev(values),
		Min: slices.Min(values), Max: slices.Max(values)}
	if s.Mean != 0 {
		s.CV = 100 * s.Stdev / math.Abs(s.Mean)
	}
	return s
}

// Spreads returns the spread of each name over the iterations that have it.
func Spreads(iterations []map[string]float64) map[string]Spread {
	values := map[string][]float64{}
	for _, it := range iterations {
		for k, v := range it {
			values[k] = append(values[k], v)
		}
	}
	out := make(map[string]Spread, len(values))
	for k, vs := range values {
		out[k] = SpreadOf(vs)
	}
	return out
}

// Exclusion drops outlying iterations before averaging, as crank's --exclude LOW:HIGH and
// --exclude-order SERVICE:RESULT: the iterations are ordered by that service's result and the
// Low lowest and High highest are left out.
type Exclusion struct {
	Low, High int
	Service   string
	Result    string
}

// Active tells whether anything is to be excluded.
func (e Exclusion) Active() bool { return e.Low+e.High > 0 }

// Keep returns the indexes (ascending) of the iterations to keep, and a note per iteration for
// the user. An iteration without the ordering result is kept out, as crank does, and said so.
// perService holds each service's per-iteration results.
func (e Exclusion) Keep(perService map[string][]map[string]float64, n int) (keep []int, notes []string) {
	its, ok := perService[e.Service]
	if !e.Active() || !ok {
		for i := range n {
			keep = append(keep, i)
		}
		if e.Active() {
			notes = append(notes, fmt.Sprintf("--exclude-order: no service %q in the results; nothing excluded", e.Service))
		}
		return keep, notes
	}
	var valid []int
	for i := range n {
		if i < len(its) {
			if _, ok := its[i][e.Result]; ok {
				valid = append(valid, i)
			}
		}
	}
	sort.SliceStable(valid, func(a, b int) bool { return its[valid[a]][e.Result] < its[valid[b]][e.Result] })
	included := map[int]bool{}
	if e.Low+e.High < len(valid) {
		for _, i := range valid[e.Low : len(valid)-e.High] {
			included[i] = true
		}
	}
	for i := range n {
		v, has := 0.0, false
		if i < len(its) {
			v, has = its[i][e.Result]
		}
		switch {
		case !has:
			notes = append(notes, fmt.Sprintf("%d/%d: no %s - skipped", i+1, n, e.Result))
		case included[i]:
			keep = append(keep, i)
			notes = append(notes, fmt.Sprintf("%d/%d: %s - included", i+1, n, Format(v, "n2")))
		default:
			notes = append(notes, fmt.Sprintf("%d/%d: %s - excluded", i+1, n, Format(v, "n2")))
		}
	}
	return keep, notes
}

// Combine sets a job's Results to the mean and Spread to the spread of the kept iterations; the
// job's Iterations keep every iteration and Excluded names the left-out ones (1-based).
func (jr *JobResult) Combine(iterations []map[string]float64, keep []int) {
	jr.Iterations = iterations
	var kept []map[string]float64
	jr.Excluded = nil
	for i, it := range iterations {
		if slices.Contains(keep, i) {
			kept = append(kept, it)
		} else {
			jr.Excluded = append(jr.Excluded, i+1)
		}
	}
	jr.Results = Average(kept)
	jr.Spread = Spreads(kept)
}

// WriteExclusionNotes prints crank's "Values of service->result" list.
func WriteExclusionNotes(w io.Writer, e Exclusion, notes []string) {
	if !e.Active() {
		return
	}
	fmt.Fprintf(w, "\nValues of %s->%s:\n", e.Service, e.Result)
	for _, n := range notes {
		fmt.Fprintln(w, "  "+n)
	}
}
