package sweep

import (
	"maps"
	"math"
	"slices"

	"github.com/crankshaft/crankshaft/internal/gate"
	"github.com/crankshaft/crankshaft/internal/measure"
	"github.com/crankshaft/crankshaft/internal/results"
	"github.com/crankshaft/crankshaft/internal/stats"
)

// serverMetrics are what a sweep reports of the services that are not loads: CPU, CPU per request,
// lock contention and exceptions (of the loads, RPS and the 99th percentile latency).
var serverMetrics = []string{measure.CPU, measure.CPUPerRequest, measure.LockContention, measure.ExceptionCount}

// Metric is one (service, measurement) pair a sweep shows.
type Metric struct {
	Service, Name string
}

// Metrics lists what the sweep shows, in the order RPS, CPU, CPU per request, lock contention,
// exceptions, latency: each measurement of every service that reports it.
func (f *File) Metrics() []Metric {
	var loads, servers []string
	seen := map[string]bool{}
	for _, v := range f.Variants {
		if v.Result == nil {
			continue
		}
		for _, name := range slices.Sorted(maps.Keys(v.Result.JobResults.Jobs)) {
			if seen[name] {
				continue
			}
			seen[name] = true
			if _, ok := v.Result.JobResults.Jobs[name].Results[measure.RPS]; ok {
				loads = append(loads, name)
			} else {
				servers = append(servers, name)
			}
		}
	}
	var out []Metric
	add := func(svcs []string, m string) {
		for _, s := range svcs {
			if f.has(s, m) {
				out = append(out, Metric{s, m})
			}
		}
	}
	add(loads, measure.RPS)
	for _, m := range serverMetrics {
		add(servers, m)
	}
	add(loads, measure.Latency99)
	return out
}

func (f *File) has(service, metric string) bool {
	for _, v := range f.Variants {
		if v.Result == nil {
			continue
		}
		if jr := v.Result.JobResults.Jobs[service]; jr != nil {
			if _, ok := jr.Results[metric]; ok {
				return true
			}
			if jr.NotMeasured[metric] != "" {
				return true
			}
		}
	}
	return false
}

// Summary is one variant's value of a metric over its iterations.
type Summary struct {
	Mean, CV float64 // CV: standard deviation over mean (0 with one iteration)
	N        int
}

// Summarize describes variant i's metric m; ok is false when it has no value.
func (f *File) Summarize(i int, m Metric) (Summary, bool) {
	r := f.Variants[i].Result
	if r == nil || r.JobResults.Jobs[m.Service] == nil {
		return Summary{}, false
	}
	jr := r.JobResults.Jobs[m.Service]
	var xs []float64
	for _, it := range jr.Iterations {
		if v, ok := it[m.Name]; ok {
			xs = append(xs, v)
		}
	}
	if len(xs) == 0 {
		return Summary{}, false
	}
	s := Summary{Mean: stats.Mean(xs), N: len(xs)}
	if s.Mean != 0 && len(xs) > 1 {
		s.CV = stats.StdDev(xs) / math.Abs(s.Mean)
	}
	return s, true
}

// Compare compares variant head with variant base on the metrics, exactly as
// `crank compare FILE#base FILE#head --metric ...` does (same function, same options), and
// returns the comparison per metric.
func (f *File) Compare(base, head int, metrics []Metric, opts gate.CompareOptions) map[Metric]gate.Comparison {
	out := map[Metric]gate.Comparison{}
	b, h := f.Variants[base].Result, f.Variants[head].Result
	if b == nil || h == nil {
		return out
	}
	var names []string
	for _, m := range metrics {
		if !slices.Contains(names, m.Name) && (hasAny(b, m.Name) || hasAny(h, m.Name)) {
			names = append(names, m.Name)
		}
	}
	if len(names) == 0 {
		return out
	}
	opts.Metrics = names
	rep, err := gate.CompareResults(b, h, opts, nil)
	if err != nil {
		return out
	}
	for _, s := range rep.Services {
		for _, row := range s.Rows {
			if len(row.Compared) == 1 {
				out[Metric{s.Service, row.Metric}] = row.Compared[0]
			}
		}
	}
	return out
}

func hasAny(r *results.Result, name string) bool {
	for _, jr := range r.JobResults.Jobs {
		if _, ok := jr.Results[name]; ok {
			return true
		}
	}
	return false
}

// Contrast is a pair of variants that differ on one axis only: Head's value against Base's (the
// axis's first value), the other axes alike.
type Contrast struct {
	Axis       Axis
	Base, Head int
}

// Contrasts lists, for each axis, every variant against the one with the axis's first value and
// the same other settings.
func (f *File) Contrasts() []Contrast {
	var out []Contrast
	for _, a := range f.Axes {
		for h, hv := range f.Variants {
			if hv.Value(a.Key) == a.Values[0] {
				continue
			}
			for b, bv := range f.Variants {
				if bv.Value(a.Key) == a.Values[0] && bv.Others(f.Axes, a.Key) == hv.Others(f.Axes, a.Key) {
					out = append(out, Contrast{Axis: a, Base: b, Head: h})
				}
			}
		}
	}
	return out
}
