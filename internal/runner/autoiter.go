package runner

import (
	"fmt"
	"io"
	"math"

	"github.com/crankshaft/crankshaft/internal/config"
	"github.com/crankshaft/crankshaft/internal/measure"
	"github.com/crankshaft/crankshaft/internal/results"
	"github.com/crankshaft/crankshaft/internal/stats"
)

// --iterations auto's defaults and floor.
const (
	DefaultPrecision     = 0.02
	DefaultMaxIterations = 20
	// MinAutoIterations: a confidence interval from fewer runs says little (t is 4.3 at 3).
	MinAutoIterations = 3
)

// Headline is the figure --iterations auto watches: the load services' http/rps/mean, added up.
func Headline(r *config.Resolved) (services []string, metric string) {
	for _, s := range r.Services {
		if s.Job.WaitForExit {
			services = append(services, s.Name)
		}
	}
	return services, measure.RPS
}

// precisionOf is the headline's mean and 95 % interval over the iterations so far.
func precisionOf(perService map[string][]map[string]float64, services []string, metric string, target float64) results.Precision {
	return summarize(iterationValues(perService, services, metric), metric, target)
}

// iterationValues is the headline figure of each iteration so far (the services' values added up),
// leaving out an iteration none of them measured it in.
func iterationValues(perService map[string][]map[string]float64, services []string, metric string) []float64 {
	var values []float64
	for i := 0; ; i++ {
		sum, found := 0.0, false
		for _, s := range services {
			its := perService[s]
			if i >= len(its) {
				return values
			}
			if v, ok := its[i][metric]; ok {
				sum, found = sum+v, true
			}
		}
		if found {
			values = append(values, sum)
		}
	}
}

func summarize(values []float64, metric string, target float64) results.Precision {
	p := results.Precision{Metric: metric, Target: target, Iterations: len(values)}
	if len(values) < 2 { // no interval yet: nothing is met
		p.Mean = stats.Mean(values)
		return p
	}
	p.Mean, p.HalfWidth = stats.MeanCI95(values)
	if p.Mean == 0 {
		return p
	}
	p.Relative = p.HalfWidth / math.Abs(p.Mean)
	p.Met = len(values) >= MinAutoIterations && p.Relative <= target
	return p
}

// until is the controller's Run.Until for --iterations auto; it reports each iteration's interval.
func until(w io.Writer, services []string, metric string, precision float64) func(map[string][]map[string]float64) bool {
	return func(perService map[string][]map[string]float64) bool {
		p := precisionOf(perService, services, metric, precision)
		if p.Iterations >= 2 {
			fmt.Fprintf(w, "precision: %s %s ± %.1f %% (95 %% interval) after %d iterations, want %.1f %%\n",
				metric, results.Format(p.Mean, "n0"), 100*p.Relative, p.Iterations, 100*precision)
		}
		return p.Met
	}
}

// PrecisionNote says, under the tables, how precise the headline figure is.
func PrecisionNote(p *results.Precision) string {
	if p == nil {
		return ""
	}
	state := "met"
	if !p.Met {
		state = fmt.Sprintf("NOT met after %d iterations (--max-iterations): the result is imprecise", p.Iterations)
	}
	return fmt.Sprintf("\nPrecision: %s %s ± %.2f %% (95 %% confidence interval of the mean) over %d iterations; wanted %.1f %%: %s\n",
		p.Metric, results.Format(p.Mean, "n0"), 100*p.Relative, p.Iterations, 100*p.Target, state)
}

// ResultPrecision is the precision a finished run reached, from its kept iterations.
func ResultPrecision(res *results.Result, services []string, metric string, target float64) *results.Precision {
	p := summarize(ResultValues(res, services, metric), metric, target)
	return &p
}

// ResultValues is the headline figure of each of a run's kept iterations, in the order they ran.
func ResultValues(res *results.Result, services []string, metric string) []float64 {
	perService := map[string][]map[string]float64{}
	for _, s := range services {
		if jr := res.JobResults.Jobs[s]; jr != nil {
			perService[s] = jr.Iterations
		}
	}
	return iterationValues(perService, services, metric)
}
