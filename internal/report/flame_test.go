package report

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/crankshaft/crankshaft/internal/profiles"
	"github.com/crankshaft/crankshaft/internal/results"
)

// A saved profile is drawn as an inline SVG flame graph, its frames named in their tooltips; one
// gone is said.
func TestFlameGraph(t *testing.T) {
	f, err := os.Open("../profiles/testdata/spin.perf-script")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p, err := profiles.ParsePerfScript(f)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var b bytes.Buffer
	if err := p.Write(&b); err != nil {
		t.Fatal(err)
	}
	// saved beside the result, named by a path that is not there from here (crank ran elsewhere)
	if err := os.WriteFile(filepath.Join(dir, "application.perf-cpu.pb.gz"), b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	run := Run{Label: "r.json", Path: filepath.Join(dir, "r.json"), Services: []string{"application"}, Result: &results.Result{
		JobResults: results.JobResults{Jobs: map[string]*results.JobResult{"application": {Profiles: []results.Profile{
			{Name: "perf-cpu", Path: "elsewhere/application.perf-cpu.pb.gz"},
			{Name: "go-cpu", Path: filepath.Join(dir, "gone.pb.gz")},
		}}}}}}
	fl := flames(run)
	if len(fl) != 2 {
		t.Fatalf("%d flame graphs, want 2", len(fl))
	}
	svg := string(fl[0].SVG)
	if fl[0].Note != "" || !strings.Contains(svg, "<title>main.spin: ") || !strings.HasPrefix(svg, "<svg") || strings.Contains(svg, "<script") {
		t.Errorf("perf-cpu: note %q, svg %.300s", fl[0].Note, svg)
	}
	if fl[1].Note == "" || fl[1].SVG != "" {
		t.Errorf("a profile that is gone: %+v", fl[1])
	}
}
