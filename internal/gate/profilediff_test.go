package gate

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/crankshaft/crankshaft/internal/profiles"
	"github.com/crankshaft/crankshaft/internal/results"
)

// perfText is perf script text with n samples of 1 ms in main.spin and 10 in main.other.
func perfText(n int) string {
	var b strings.Builder
	for i := range n + 10 {
		fn := "main.spin"
		if i >= n {
			fn = "main.other"
		}
		fmt.Fprintf(&b, "app 1 1.0: 1000000 cpu-clock:\n\t 10 %s (/app)\n\t 20 main.main (/app)\n\n", fn)
	}
	return b.String()
}

// profiledResult is a run of 1000 requests whose perf profile covers that share of its run.
func profiledResult(t *testing.T, dir, name string, spinSamples int, coverage float64) *results.Result {
	t.Helper()
	p, err := profiles.ParsePerfScript(strings.NewReader(perfText(spinSamples)))
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := p.Write(&b); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name+".perf-cpu.pb.gz")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return &results.Result{JobResults: results.JobResults{Jobs: map[string]*results.JobResult{
		"application": {Profiles: []results.Profile{{Name: "perf-cpu", Path: path, Coverage: coverage}}},
		"load":        {Results: map[string]float64{"http/requests": 1000}},
	}}}
}

// The function whose CPU per request grew is listed first, with its growth a request: its time
// over the requests each profile's window saw (half the run's here).
func TestProfileDiff(t *testing.T) {
	dir := t.TempDir()
	base, head := profiledResult(t, dir, "base", 10, 0.5), profiledResult(t, dir, "head", 30, 0.5)
	var out bytes.Buffer
	writeProfileDiffs(&out, []*results.Result{base, head}, []string{"base.json", "head.json"})
	want := "\nCPU per request in application's perf-cpu profile, base.json -> head.json (the functions that changed most, by time in themselves):\n" +
		"    +40.00 µs a request in main.spin (20.00 -> 60.00 µs)\n"
	if !strings.Contains(out.String(), want) {
		t.Errorf("got:\n%s\nwant:\n%s", out.String(), want)
	}
	if strings.Contains(out.String(), "main.other") {
		t.Errorf("an unchanged function is listed:\n%s", out.String())
	}
}

// A profile whose coverage of its run is unknown (an older result file) is divided by all the
// run's requests, and the title says that this reads low.
func TestProfileDiffCoverageUnknown(t *testing.T) {
	dir := t.TempDir()
	base, head := profiledResult(t, dir, "base", 10, 0), profiledResult(t, dir, "head", 30, 0.5)
	var out bytes.Buffer
	writeProfileDiffs(&out, []*results.Result{base, head}, []string{"base.json", "head.json"})
	want := "\nCPU per request in application's perf-cpu profile, base.json -> head.json (the functions that changed most, by time in themselves; " +
		"per request over all the run's requests: reads low when the profile covers part of the run):\n" +
		"    +20.00 µs a request in main.spin (10.00 -> 30.00 µs)\n"
	if !strings.Contains(out.String(), want) {
		t.Errorf("got:\n%s\nwant:\n%s", out.String(), want)
	}
}
