package results

import (
	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/measure"
)

// Derive adds the results computed from others, to every job of one run (or one iteration):
//   - http/requests/error-rate on a load job: bad responses and socket errors over requests plus
//     socket errors, in percent;
//   - load/rate-reached on a load job that asked a rate (load/asked-rate): its requests/s over
//     that rate, in percent (ShortOfRate says the loads below 1 - MaxBehind);
//   - benchmarks/cpu/per-request on every job with CPU, when the run's load jobs report RPS: the
//     job's mean CPU over its measured samples (cpu/raw, the summary when there are no samples) over
//     the run's requests per second, in microseconds of CPU per request (µs). This is the one place
//     it is computed: runs, iterations and sweeps alike.
//
// Existing values are kept, so Derive may run again on a result read back from a file.
func Derive(jobs map[string]*JobResult) {
	var rps float64
	for _, jr := range jobs {
		if jr == nil {
			continue
		}
		rps += jr.Results[measure.RPS]
		deriveErrorRate(jr)
		deriveRateReached(jr)
	}
	if rps <= 0 {
		return
	}
	for _, jr := range jobs {
		if jr == nil || has(jr, measure.CPUPerRequest) {
			continue
		}
		if cpu, ok := TotalMeasuredMean(jr, measure.CPURaw); ok {
			setDerived(jr, measure.CPUPerRequest, CPUPerRequest(cpu, rps))
		}
	}
}

func deriveErrorRate(jr *JobResult) {
	reqs, ok := jr.Results[measure.Requests]
	if !ok || has(jr, measure.ErrorRate) {
		return
	}
	failed := jr.Results[measure.BadResponses] + jr.Results[measure.Errors]
	attempts := reqs + jr.Results[measure.Errors]
	if attempts <= 0 {
		if failed == 0 {
			return
		}
		attempts = failed
	}
	setDerived(jr, measure.ErrorRate, 100*failed/attempts)
}

func deriveRateReached(jr *JobResult) {
	asked, done := jr.Results[measure.LoadAskedRate], jr.Results[measure.RPS]
	if asked <= 0 || !has(jr, measure.RPS) || has(jr, measure.LoadRateReached) {
		return
	}
	setDerived(jr, measure.LoadRateReached, 100*done/asked)
}

func has(jr *JobResult, name string) bool {
	_, ok := jr.Results[name]
	return ok
}

func setDerived(jr *JobResult, name string, v float64) {
	if jr.Results == nil {
		jr.Results = map[string]float64{}
	}
	jr.Results[name] = v
	for _, m := range jr.Metadata {
		if m.Name == name {
			return
		}
	}
	if md, ok := measure.Default().Lookup(name); ok {
		jr.Metadata = append(jr.Metadata, md)
	}
}

// MeasuredMean is the mean of the name's measured samples (not warm-up, not cool-down) over every
// endpoint's timeline, or its summary value when the result has no samples of it.
func MeasuredMean(jr *JobResult, name string) (float64, bool) {
	var sum float64
	var n int
	for _, tl := range jr.Measurements {
		for _, m := range tl {
			if m.Name == name && m.Measured() {
				sum += m.Value
				n++
			}
		}
	}
	if n > 0 {
		return sum / float64(n), true
	}
	v, ok := jr.Results[name]
	return v, ok
}

// endpointMeans is the mean of name's measured samples in each endpoint's timeline that has some.
func endpointMeans(jr *JobResult, name string) []float64 {
	var out []float64
	for _, tl := range jr.Measurements {
		var sum float64
		var n int
		for _, m := range tl {
			if m.Name == name && m.Measured() {
				sum += m.Value
				n++
			}
		}
		if n > 0 {
			out = append(out, sum/float64(n))
		}
	}
	return out
}

// TotalMeasuredMean is the job's whole figure over its endpoints: the sum of each endpoint's mean
// of name's measured samples (a load on three agents uses the CPU of the three), or its summary
// value when the result has no samples of it. For one endpoint it is MeasuredMean.
func TotalMeasuredMean(jr *JobResult, name string) (float64, bool) {
	if sum, ok := Apply(api.OpSum, endpointMeans(jr, name)); ok {
		return sum, true
	}
	v, ok := jr.Results[name]
	return v, ok
}

// CPUPerRequest is the CPU time per request, in µs, of a job using cpuRaw % of one core (its mean)
// while the run serves rps requests per second.
func CPUPerRequest(cpuRaw, rps float64) float64 { return cpuRaw / 100 / rps * 1e6 }
