package results

import "maps"

// AddIteration adds one run to acc as one more iteration of each job: the job's Iterations gain
// the run's results, its Results become the mean of its iterations, and its timelines and
// environment are the latest run's; what any run could not measure stays said. acc nil starts
// from a copy of run. It returns the accumulated result (acc, or the new one).
func AddIteration(acc, run *Result) *Result {
	Derive(run.JobResults.Jobs) // CPU per request as every run has it (a no-op where it is)
	if acc == nil {
		cp := *run
		cp.JobResults.Jobs = map[string]*JobResult{}
		acc = &cp
	}
	for name, jr := range run.JobResults.Jobs {
		prev := acc.JobResults.Jobs[name]
		its := []map[string]float64{jr.Results}
		if prev != nil {
			its = append(prev.Iterations, jr.Results)
		}
		cp := *jr
		cp.Iterations = its
		cp.Results = Average(its)
		if prev != nil && len(prev.NotMeasured) > 0 {
			cp.NotMeasured = maps.Clone(prev.NotMeasured)
			maps.Copy(cp.NotMeasured, jr.NotMeasured)
		}
		acc.JobResults.Jobs[name] = &cp
	}
	return acc
}
