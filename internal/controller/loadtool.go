package controller

import (
	"slices"

	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/loadtool"
	"github.com/crankshaft/crankshaft/internal/results"
)

// withLoadTool records on a load job's result the model of its tool's run (internal/loadtool:
// its loop, its latency's correction for coordinated omission, its percentiles, what its
// requests/s counts), and labels each latency figure's description with it, so that the JSON
// says, beside a closed loop's p99, that it is not corrected for coordinated omission. A job
// that is no known tool is left as it is.
func withLoadTool(jr *results.JobResult, job api.Job) {
	m, ok := loadtool.Of(job.Parser, job.Executable, job.Variables)
	if !ok {
		return
	}
	jr.LoadTool = &m
	jr.Metadata = slices.Clone(jr.Metadata) // the instances' metadata stay the agents'
	for i, md := range jr.Metadata {
		if !loadtool.IsLatency(md.Name) {
			continue
		}
		if md.ShortDescription != "" {
			jr.Metadata[i].ShortDescription = md.ShortDescription + ", " + m.Label()
		}
		jr.Metadata[i].LongDescription = md.LongDescription + " (" + m.Tool + ", " + m.Note + ")"
	}
}
