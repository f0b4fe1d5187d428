package report

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/crankshaft/crankshaft/internal/measure"
	"github.com/crankshaft/crankshaft/internal/results"
	"github.com/crankshaft/crankshaft/internal/sweep"
)

// sweepFile writes a finished sweep of the given matrix whose RPS is rps(variant) per run.
func sweepFile(t *testing.T, matrix []string, rps func(v sweep.Cell) float64) string {
	t.Helper()
	var axes []sweep.Axis
	for _, m := range matrix {
		a, err := sweep.ParseAxis(m)
		if err != nil {
			t.Fatal(err)
		}
		axes = append(axes, a)
	}
	f, err := sweep.NewFile("plaintext", nil, axes, "", 4)
	if err != nil {
		t.Fatal(err)
	}
	path, n := filepath.Join(t.TempDir(), "sweep.json"), 0
	run := func(_ context.Context, v sweep.Cell) (*results.Result, error) {
		n++
		return &results.Result{JobResults: results.JobResults{Jobs: map[string]*results.JobResult{
			"load":        {Results: map[string]float64{measure.RPS: rps(v) * (1 + 0.01*float64(n%3))}},
			"application": {Results: map[string]float64{measure.CPU: 50, measure.CPURaw: 100}},
		}}}, nil
	}
	if err := sweep.Run(t.Context(), f, sweep.Options{Path: path, Run: run}); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestReportSweepScaling: a sweep over cpuSet gets a page with RPS over cores beside linear
// scaling, one chart per setting of the other axes, and the sweep's own tables and scaling.
func TestReportSweepScaling(t *testing.T) {
	path := sweepFile(t, []string{"dispatch=shared,partitioned", "application.cpuSet=0,0-1,0-3"}, func(v sweep.Cell) float64 {
		cores := map[string]float64{"0": 1, "0-1": 2, "0-3": 4}[v.Value("application.cpuSet")]
		if v.Value("dispatch") == "shared" {
			return 1e6 * min(cores, 2) // flattens after two cores
		}
		return 1e6 * cores
	})
	html, stdout, _ := writePage(t, path)
	if n := strings.Count(html, "<figure"); n != 2 {
		t.Errorf("%d charts, want 2 (one scaling curve per dispatch)", n)
	}
	for _, want := range []string{"<h2>Scaling</h2>", "RPS over application.cpuSet (dispatch=shared)",
		"RPS over application.cpuSet (dispatch=partitioned)", "linear from 1 core", "4,000,000",
		"Scaling over application.cpuSet", "flattens at 2 cores", "http/rps/mean (load)"} {
		if !strings.Contains(html, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if !strings.Contains(stdout, "(a sweep, 2 chart(s))") {
		t.Errorf("stdout %q", stdout)
	}
}

// TestReportSweepVariants: a sweep without a cpuSet axis gets each variant's mean RPS as bars;
// a sweep file with other files is refused, naming it.
func TestReportSweepVariants(t *testing.T) {
	path := sweepFile(t, []string{"dispatch=inline,shared"}, func(v sweep.Cell) float64 {
		return map[string]float64{"inline": 2e6, "shared": 1e6}[v.Value("dispatch")]
	})
	pg, err := build([]string{path})
	if err != nil {
		t.Fatal(err)
	}
	if pg.ChartsHeading != "Variants" || len(pg.Charts) != 1 || !strings.Contains(string(pg.Charts[0].SVG), "dispatch=inline") {
		t.Errorf("heading %q, %d charts", pg.ChartsHeading, len(pg.Charts))
	}
	if _, err := build([]string{path, "testdata/before.json"}); err == nil || !strings.Contains(err.Error(), path+" is a sweep file") {
		t.Errorf("a sweep with a result file: %v", err)
	}
}
