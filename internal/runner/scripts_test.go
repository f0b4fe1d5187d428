package runner

import (
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/config"
	"github.com/crankshaft/crankshaft/internal/results"
)

// crank's order after a run: onResultsCreating defines functions, results: use them (aggregate
// per endpoint, reduce across), onResultsCreated and --script see and change benchmarks.
func TestApplyScripts(t *testing.T) {
	at := time.Now()
	tl := func(vals ...float64) []api.Measurement {
		var out []api.Measurement
		for _, v := range vals {
			out = append(out, api.Measurement{Name: "benchmarks/cpu/raw", Timestamp: at, Value: v})
		}
		out = append(out, api.Measurement{Name: "benchmarks/cpu/raw", Timestamp: at, Value: 1000, Warmup: true})
		return out
	}
	res := &results.Result{JobResults: results.JobResults{Properties: map[string]string{}, Jobs: map[string]*results.JobResult{
		"load": {Results: map[string]float64{"http/rps/mean": 100}, Measurements: [][]api.Measurement{
			tl(10, 20, 30, 40, 50, 60, 70, 80, 90, 100), tl(1, 2, 3)}},
	}}}
	s := &config.Scripts{
		OnResultsCreating: []config.Snippet{{Where: "a.yml:1 onResultsCreating[0]", Source: "function twice(v) { return 2 * max(v); }"}},
		Results: []config.ResultDef{
			{Name: "benchmarks/cpu/raw/90", Measurement: "benchmarks/cpu/raw", Description: "Cores Usage (90th %)", Format: "n0", Aggregate: "percentile90", Reduce: "max"},
			{Name: "cpu/twice", Measurement: "benchmarks/cpu/raw", Aggregate: "twice", Reduce: "sum"},
			{Name: "never", Measurement: "absent", Aggregate: "max"},
		},
		OnResultsCreated: []config.Snippet{{Where: "a.yml:9 onResultsCreated[0]",
			Source: `require("label"); benchmarks.properties["p"] = "x";`}},
		Named: map[string]config.Snippet{
			"double": {Where: "a.yml:12 scripts.double", Source: `benchmarks.jobs.load.results["http/rps/mean"] *= 2;`},
			"label":  {Where: "a.yml:13 scripts.label", Source: `benchmarks.jobs.load.results["label"] = "text";`},
		},
	}
	var out strings.Builder
	if err := applyScripts(s, []string{"double"}, res, &out, nil); err != nil {
		t.Fatal(err)
	}
	j := res.JobResults.Jobs["load"]
	if j.Results["benchmarks/cpu/raw/90"] != 90 || j.Results["cpu/twice"] != 206 || j.Results["http/rps/mean"] != 200 {
		t.Errorf("results = %v", j.Results)
	}
	if _, ok := j.Results["never"]; ok {
		t.Error("a result with no samples is left out")
	}
	if j.Values["label"] != "text" || res.JobResults.Properties["p"] != "x" {
		t.Errorf("values %v, properties %v", j.Values, res.JobResults.Properties)
	}
	found := false
	for _, m := range j.Metadata {
		if m.Name == "benchmarks/cpu/raw/90" && m.ShortDescription == "Cores Usage (90th %)" && m.Format == "n0" {
			found = true
		}
	}
	if !found {
		t.Errorf("metadata = %+v", j.Metadata)
	}
	s.OnResultsCreated = []config.Snippet{{Where: "a.yml:9 onResultsCreated[0]", Source: `throw "no"`}}
	if err := applyScripts(s, nil, res, &out, nil); err == nil || err.Error() != "a.yml:9 onResultsCreated[0]: no" {
		t.Errorf("error = %v", err)
	}
	s.OnResultsCreated = []config.Snippet{{Where: "a.yml:9 onResultsCreated[0]", Source: `require("nope")`}}
	if err := applyScripts(s, nil, res, &out, nil); err == nil || !strings.Contains(err.Error(), `require("nope"): no script of that name`) {
		t.Errorf("error = %v", err)
	}
}

// TestScriptsFS: after a run, onResultsCreated and --script have crank's fs object, relative
// paths from the working directory: one writes the results to a file, the other reads it back
// into a property; a file that cannot be read stops with the script's name.
func TestScriptsFS(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	res := &results.Result{JobResults: results.JobResults{Properties: map[string]string{}, Jobs: map[string]*results.JobResult{
		"load": {Results: map[string]float64{"http/rps/mean": 1234}},
	}}}
	s := &config.Scripts{
		OnResultsCreated: []config.Snippet{{Where: "a.yml:9 onResultsCreated[0]",
			Source: `fs.writeFile("rps.txt", "rps=" + benchmarks.jobs.load.results["http/rps/mean"]);`}},
		Named: map[string]config.Snippet{
			"read": {Where: "a.yml:12 scripts.read", Source: `benchmarks.properties["saved"] = fs.exists("rps.txt") ? fs.readFile("rps.txt") : "none";`},
			"bad":  {Where: "a.yml:13 scripts.bad", Source: `fs.readFile("nope.txt");`},
		},
	}
	if err := applyScripts(s, []string{"read"}, res, io.Discard, nil); err != nil {
		t.Fatal(err)
	}
	if got := res.JobResults.Properties["saved"]; got != "rps=1234" {
		t.Errorf("saved = %q, want rps=1234", got)
	}
	err := applyScripts(s, []string{"bad"}, res, io.Discard, nil)
	if err == nil || !strings.Contains(err.Error(), `a.yml:13 scripts.bad: fs.readFile("nope.txt"): no such file or directory`) {
		t.Errorf("bad: %v", err)
	}
}

// TestRemoteRootScriptsWithoutFS: root scripts from a configuration loaded from a URL get no fs,
// nor through a function a local script defined before, nor in a script they require; the
// machine's file is neither read nor written (issue 25, third audit, 2).
func TestRemoteRootScriptsWithoutFS(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	if err := os.WriteFile("secret.txt", []byte("s3cret"), 0o600); err != nil {
		t.Fatal(err)
	}
	newRes := func() *results.Result {
		return &results.Result{JobResults: results.JobResults{Properties: map[string]string{}, Jobs: map[string]*results.JobResult{}}}
	}
	local := config.Snippet{Where: "a.yml:3 onResultsCreating[0]", Source: `function save(n, d) { fs.writeFile(n, d); }`}
	for name, remote := range map[string]config.Snippet{
		"direct":  {Where: "http://x/r.yml:4 onResultsCreated[0]", Source: `benchmarks.properties.leak = fs.readFile("secret.txt")`, Remote: true},
		"through": {Where: "http://x/r.yml:5 onResultsCreated[0]", Source: `save("written.txt", "x")`, Remote: true},
		"require": {Where: "a.yml:6 onResultsCreated[0]", Source: `require("evil")`},
	} {
		t.Run(name, func(t *testing.T) {
			s := &config.Scripts{OnResultsCreating: []config.Snippet{local}, OnResultsCreated: []config.Snippet{remote},
				Named: map[string]config.Snippet{"evil": {Where: "http://x/r.yml:9 scripts.evil", Source: `fs.writeFile("written.txt", "x")`, Remote: true}}}
			res := newRes()
			err := applyScripts(s, nil, res, io.Discard, nil)
			if err == nil || !strings.Contains(err.Error(), "not available: this engine ran http://x/r.yml") {
				t.Errorf("error %v, want fs refused naming the remote script", err)
			}
			if res.JobResults.Properties["leak"] != "" {
				t.Errorf("read %q", res.JobResults.Properties["leak"])
			}
			if _, err := os.Stat("written.txt"); !os.IsNotExist(err) {
				t.Errorf("written.txt: %v, want it not written", err)
			}
		})
	}
}
