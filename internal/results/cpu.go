package results

import (
	"fmt"
	"math"

	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/measure"
)

// MachineCPU is a job's headline CPU, said one way everywhere (docs/MEASUREMENTS.md, "CPU said one
// way"): benchmarks/cpu's mean over the measured samples, in percent of the whole machine, and its
// machine's cores: environment.cores, else the ratio of cpu/raw to cpu (0 when unknown). ok is
// false when the job has no CPU. The diagnosis and crank report read it here.
func MachineCPU(jr *JobResult) (mean float64, cores int, ok bool) {
	mean, ok = MeasuredMean(jr, measure.CPU)
	if n, has := api.Number(jr.Environment["cores"]); has && n >= 1 {
		cores = int(n)
	} else if raw, hasRaw := MeasuredMean(jr, measure.CPURaw); hasRaw && ok && mean > 0 {
		cores = int(math.Round(raw / mean)) // benchmarks/cpu is cpu/raw over the cores
	}
	return mean, cores, ok
}

// CPUText says MachineCPU: "46 % of the machine (0.9 of 2 cores)", or "46 % of the machine" when
// the cores are unknown.
func CPUText(mean float64, cores int) string {
	text := Format(mean, "n0") + " " + measure.UnitPercent + " of the machine"
	if cores <= 0 {
		return text
	}
	what := "cores"
	if cores == 1 {
		what = "core"
	}
	return text + fmt.Sprintf(" (%.1f of %d %s)", mean/100*float64(cores), cores, what)
}
