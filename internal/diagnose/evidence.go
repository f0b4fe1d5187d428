package diagnose

import (
	"fmt"
	"math"
	"strings"

	"github.com/crankshaft/crankshaft/internal/measure"
	"github.com/crankshaft/crankshaft/internal/results"
)

// statMean marks a figure that is the mean of the measured samples (warm-up left out).
const statMean = "mean"

// cpuText is "46 % of the machine (0.9 of 2 cores)": benchmarks/cpu's mean, and the cores it is;
// for a job on several agents, "1.5 cores in all on 3 agents (25 % of the machine (0.5 of 2
// cores) each on average)".
func cpuText(j *job) string {
	if j.split() {
		return fmt.Sprintf("%.1f cores in all on %d agents (%s each on average)", j.used, len(j.parts), results.CPUText(j.cpu, j.cores))
	}
	return results.CPUText(j.cpu, j.cores)
}

// usage is cpuText and what the job could use: "95 % of the machine (1.9 of 2 cores; it could
// use 1.9: 2 cores less 0.1 used by load)".
func usage(j *job) string {
	if j.split() {
		return fmt.Sprintf("%s; it could use %.1f: %s", cpuText(j), j.cap, j.capNote)
	}
	return fmt.Sprintf("%.0f %% of the machine (%.1f of %s; it could use %.1f: %s)",
		j.cpu, j.used, plural(j.cores, "core"), j.cap, j.capNote)
}

// cpuList is "application 46 % (0.9 cores), load 33 % (0.7 cores)": what the machine's jobs used
// there.
func cpuList(m *machine) string {
	parts := make([]string, len(m.jobs))
	for i, j := range m.jobs {
		used := j.usedOn(m.key)
		parts[i] = fmt.Sprintf("%s %.0f %% (%.1f cores)", j.name, 100*used/float64(m.cores), used)
	}
	return strings.Join(parts, ", ")
}

// names is "application and load".
func names(jobs []*job) string {
	n := make([]string, len(jobs))
	for i, j := range jobs {
		n[i] = j.name
	}
	if len(n) <= 1 {
		return strings.Join(n, "")
	}
	return strings.Join(n[:len(n)-1], ", ") + " and " + n[len(n)-1]
}

// cpuFigs are the jobs' benchmarks/cpu means.
func (r run) cpuFigs(jobs ...*job) []results.Figure {
	out := make([]results.Figure, 0, len(jobs))
	for _, j := range jobs {
		out = append(out, results.Figure{Service: j.name, Name: measure.CPU, Stat: statMean, Value: round(j.cpu), Unit: r.unit(measure.CPU)})
		if j.split() {
			out = append(out, results.Figure{Service: j.name, Name: "cores used, every agent added", Value: round(j.used), Unit: "cores"})
		}
	}
	return out
}

// capFigs are what the job could use, in cores, and its machine's cores.
func capFigs(j *job) []results.Figure {
	return []results.Figure{coresFig(j), {Service: j.name, Name: "cores it could use", Value: round(j.cap), Unit: "cores"}}
}

func coresFig(j *job) results.Figure {
	return results.Figure{Service: j.name, Name: "environment/cores", Value: float64(j.cores), Unit: "cores"}
}

// stealFig is the machine's benchmarks/cpu/steal mean.
func (r run) stealFig(m *machine) results.Figure {
	return results.Figure{Service: names(m.jobs), Name: measure.CPUSteal, Stat: statMean, Value: round(m.steal), Unit: r.unit(measure.CPUSteal)}
}

// globalFig is the machine's benchmarks/cpu/global mean.
func (r run) globalFig(m *machine) results.Figure {
	return results.Figure{Service: names(m.jobs), Name: measure.CPUGlobal, Stat: statMean, Value: round(m.busy()), Unit: r.unit(measure.CPUGlobal)}
}

// resultFig is one of the job's results.
func (r run) resultFig(j *job, name string) results.Figure {
	return results.Figure{Service: j.name, Name: name, Value: round(j.results[name]), Unit: r.unit(name)}
}

// total is a result added over the load jobs.
func (r run) total(name string) results.Figure {
	return results.Figure{Name: name, Value: total(r.loads, name), Unit: r.unit(name)}
}

// varFig is one of the job's variables.
func varFig(j *job, name string, v float64, unit string) results.Figure {
	return results.Figure{Service: j.name, Name: "variables/" + name, Value: v, Unit: unit}
}

// unit is the catalog's unit of a measurement.
func (r run) unit(name string) string {
	m, _ := r.catalog.Lookup(name)
	return m.Unit
}

// round keeps two decimals: figures are read by people and compared by tests.
func round(v float64) float64 { return math.Round(v*100) / 100 }
