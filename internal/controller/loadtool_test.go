package controller

import (
	"strings"
	"testing"

	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/loadtool"
	"github.com/crankshaft/crankshaft/internal/measure"
	"github.com/crankshaft/crankshaft/internal/results"
)

// A load job's result carries its tool's model, and its latency figures say whether they are
// corrected for coordinated omission; other figures and jobs that are no known tool are left alone.
func TestWithLoadTool(t *testing.T) {
	cases := []struct {
		job   api.Job
		loop  loadtool.Loop
		label string // in the latency's short description; "" for no model
	}{
		{api.Job{Parser: "wrk", Executable: "wrk"}, loadtool.Closed, "back-filled by wrk, not corrected for coordinated omission"},
		{api.Job{Parser: "bombardier", Executable: "bombardier", Variables: map[string]any{"rate": 1000}}, loadtool.RateLimited, ", not corrected for coordinated omission"},
		{api.Job{Parser: "builtin", Executable: "crank", Variables: map[string]any{"rate": 0}}, loadtool.Closed, ", not corrected for coordinated omission"},
		{api.Job{Parser: "builtin", Executable: "crank", Variables: map[string]any{"rate": 1000}}, loadtool.Open, ", corrected for coordinated omission"},
		{api.Job{Parser: "wrk", Executable: "wrk2"}, "", ""},
	}
	catalog := measure.Default()
	for _, c := range cases {
		p99, _ := catalog.Lookup(measure.Latency99)
		rps, _ := catalog.Lookup(measure.RPS)
		agents := []api.Metadata{p99, rps}
		jr := &results.JobResult{Metadata: agents}
		withLoadTool(jr, c.job)
		if c.label == "" {
			if jr.LoadTool != nil || jr.Metadata[0] != p99 {
				t.Errorf("%s %s: labelled a job that is no known tool: %+v", c.job.Parser, c.job.Executable, jr.LoadTool)
			}
			continue
		}
		if jr.LoadTool == nil || jr.LoadTool.Loop != c.loop {
			t.Fatalf("%s %v: model %+v, want loop %s", c.job.Parser, c.job.Variables, jr.LoadTool, c.loop)
		}
		got := jr.Metadata[0]
		if !strings.HasPrefix(got.ShortDescription, p99.ShortDescription) || !strings.HasSuffix(got.ShortDescription, c.label) {
			t.Errorf("%s %v: p99 described %q, want %q after the catalog's", c.job.Parser, c.job.Variables, got.ShortDescription, c.label)
		}
		if !strings.Contains(got.LongDescription, jr.LoadTool.Note) {
			t.Errorf("%s: p99's long description %q lacks the model's note", c.job.Parser, got.LongDescription)
		}
		if jr.Metadata[1] != rps {
			t.Errorf("%s: requests/s relabelled: %+v", c.job.Parser, jr.Metadata[1])
		}
		if agents[0] != p99 {
			t.Errorf("%s: the agent's metadata changed", c.job.Parser)
		}
	}
}
