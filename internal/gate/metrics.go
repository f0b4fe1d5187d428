package gate

import (
	"cmp"
	"slices"
	"strings"

	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/measure"
	"github.com/crankshaft/crankshaft/internal/results"
)

// isDefaultMetric tells whether a measurement is gated when no --metric is given: every RPS
// (names ending in /rps/mean), the error rate, the 99th percentile latency, the CPU, the CPU
// per request, and the bench's ratio to the reference and CPU per request (docs/PERFORMANCE.json).
func isDefaultMetric(name string) bool {
	return metricRank(name) < len(defaultOrder)+1
}

// defaultOrder is the order of the default metrics after RPS.
var defaultOrder = []string{measure.ErrorRate, measure.Latency99, measure.CPU, measure.CPUPerRequest,
	measure.BenchRatio, measure.BenchCPUPerRequest}

// metricRank orders a table's rows: RPS first, then defaultOrder's, and the rest by name.
func metricRank(name string) int {
	if strings.HasSuffix(name, "/rps/mean") {
		return 0
	}
	if i := slices.Index(defaultOrder, name); i >= 0 {
		return i + 1
	}
	return len(defaultOrder) + 1
}

// sameAsRPS tells the RPS a tool reports beside http/rps/mean (wrk/rps/mean, builtin/rps/mean...):
// the same number, counted once by default.
func sameAsRPS(name string) bool {
	return name != measure.RPS && strings.HasSuffix(name, "/rps/mean") && name != measure.GRPCRPS
}

func sortMetrics(names []string) { slices.SortFunc(names, metricOrder) }

// metricOrder orders metrics by metricRank, then by name.
func metricOrder(a, b string) int {
	return cmp.Or(metricRank(a)-metricRank(b), strings.Compare(a, b))
}

// metricsOf lists the metrics of one service to show: the wanted ones present in any of the job
// results (nil entries allowed), or the default ones when wanted is empty.
func metricsOf(jobs []*results.JobResult, wanted []string) []string {
	seen := map[string]bool{}
	hasRPS := false
	for _, jr := range jobs {
		if jr != nil {
			_, ok := jr.Results[measure.RPS]
			hasRPS = hasRPS || ok
		}
	}
	for _, jr := range jobs {
		if jr == nil {
			continue
		}
		for name := range jr.Results {
			if (len(wanted) == 0 && isDefaultMetric(name) && !(hasRPS && sameAsRPS(name))) || slices.Contains(wanted, name) {
				seen[name] = true
			}
		}
		// A figure one side's tool printed but not to trust still gets its row, saying so.
		for name := range jr.NotMeasured {
			if (len(wanted) == 0 && isDefaultMetric(name)) || slices.Contains(wanted, name) {
				seen[name] = true
			}
		}
	}
	names := make([]string, 0, len(seen))
	for name := range seen {
		names = append(names, name)
	}
	sortMetrics(names)
	return names
}

// hasMetric tells whether any service of r reports name.
func hasMetric(r *results.Result, name string) bool {
	for _, jr := range r.JobResults.Jobs {
		if jr == nil {
			continue
		}
		if _, ok := jr.Results[name]; ok {
			return true
		}
		if _, ok := jr.NotMeasured[name]; ok {
			return true
		}
	}
	return false
}

// samples gathers the per-iteration values of name.
func samples(jr *results.JobResult, name string) []float64 {
	if jr == nil {
		return nil
	}
	var out []float64
	for _, it := range jr.Iterations {
		if v, ok := it[name]; ok {
			out = append(out, v)
		}
	}
	return out
}

// metadataOf finds name's metadata in the first job result that declares it.
func metadataOf(name string, jobs ...*results.JobResult) *api.Metadata {
	for _, jr := range jobs {
		if jr == nil {
			continue
		}
		for i := range jr.Metadata {
			if jr.Metadata[i].Name == name {
				return &jr.Metadata[i]
			}
		}
	}
	return nil
}

// serviceNames lists the services of all results, sorted.
func serviceNames(rs []*results.Result) []string {
	seen := map[string]bool{}
	for _, r := range rs {
		for name := range r.JobResults.Jobs {
			seen[name] = true
		}
	}
	names := make([]string, 0, len(seen))
	for name := range seen {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}
