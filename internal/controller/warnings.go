package controller

import "strings"

// countersPrefix starts the names of the runtime counters scraped from an app's metrics.
const countersPrefix = "runtime-counter/"

// countersMissing says why a server job has no runtime counters, or "" when it has some (or is
// a load job, which has none to give).
func countersMissing(in *instance) string {
	if in.job.WaitForExit || in.status.Skipped != "" {
		return ""
	}
	for _, m := range in.measured.Measurements {
		if strings.HasPrefix(m.Name, countersPrefix) {
			return ""
		}
	}
	for _, w := range in.status.Warnings {
		if strings.Contains(w, "runtime counters") {
			return w
		}
	}
	if in.job.MetricsPort == 0 && in.job.MetricsURL == "" {
		return "metrics off: the job has no metricsPort or metricsUrl"
	}
	return "the app's metrics gave none of the counters the job maps"
}

// report prints what the agent said the job did not get, and why its counters are missing.
func (c *Controller) reportWarnings(in *instance) {
	for _, w := range in.status.Warnings {
		c.progress(in.service, "warning from %s: %s", in.url, w)
	}
	if why := countersMissing(in); why != "" && !strings.Contains(strings.Join(in.status.Warnings, "\n"), why) {
		c.progress(in.service, "runtime counters not measured on %s: %s", in.url, why)
	}
}
