package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// resultFilesYAML is a job whose source is the folder holding this file (a checkout): its build
// counts itself in BUILDS (outside the checkout) and its run reports one figure in crank's
// #StartJobStatistics block, the variant's {{n}}.
const resultFilesYAML = `jobs:
  count:
    source: {localFolder: .}
    executable: /bin/sh
    arguments: report.sh {{n}}
    waitForExit: true
    buildCommand: echo build >> BUILDS && echo ok > built
    variables: {n: 1}
scenarios:
  s:
    load: {job: count, endpoints: []}
`

const resultFilesReport = `cat built >/dev/null || exit 1
echo '#StartJobStatistics'
echo '{"Metadata":[{"Source":"count","Name":"count/n","Aggregate":"max","Reduce":"max","Format":"n0","ShortDescription":"n","LongDescription":"n"}],"Measurements":[{"Timestamp":"2026-01-01T00:00:00Z","Name":"count/n","Value":'$1'}]}'
echo '#EndJobStatistics'
`

// TestResultFilesInsideTheSourceAreNotSource: result files written inside the uploaded folder
// never change its build: a run's --json and --csv there, then a sweep writing its file there after
// every run, and a .gitignore'd folder that changes between runs; the app is built once, every
// later run says buildReused.
func TestResultFilesInsideTheSourceAreNotSource(t *testing.T) {
	checkout := t.TempDir()
	builds := filepath.Join(t.TempDir(), "builds.log")
	writeFile(t, checkout, "job.yml", strings.ReplaceAll(resultFilesYAML, "BUILDS", builds))
	writeFile(t, checkout, "report.sh", resultFilesReport)
	writeFile(t, checkout, ".gitignore", "/scratch/\n")
	if err := os.MkdirAll(filepath.Join(checkout, "scratch"), 0o755); err != nil {
		t.Fatal(err)
	}
	env := []string{"XDG_CACHE_HOME=" + t.TempDir()} // the embedded agent's build cache and crank's record of result files
	buildCount := func() int {
		b, _ := os.ReadFile(builds)
		return strings.Count(string(b), "build")
	}
	cfg := filepath.Join(checkout, "job.yml")

	out := filepath.Join(checkout, "first.json")
	r := crankEnv(t, 2*time.Minute, env, "--config", cfg, "--scenario", "s", "--json", out, "--csv", filepath.Join(checkout, "runs.csv"))
	if r.code != 0 {
		t.Fatalf("first run: exit %d\n%s", r.code, r.stderr)
	}
	if n := buildCount(); n != 1 {
		t.Fatalf("first run: %d builds, want 1", n)
	}
	if reused := readJobs(t, out)["load"].Environment["buildReused"]; reused != nil {
		t.Fatalf("first run: buildReused %v on an empty build cache", reused)
	}
	writeFile(t, checkout, "scratch/notes.txt", "ignored by .gitignore")

	// A sweep of two variants written inside the checkout: first.json and runs.csv are there now
	// (results of the run before), and sweep.json is rewritten after each of its runs.
	sweepFile := filepath.Join(checkout, "sweep.json")
	r = crankEnv(t, 3*time.Minute, env, "sweep", "--config", cfg, "--scenario", "s", "--matrix", "n=1,2",
		"--iterations", "1", "--json", sweepFile)
	if r.code != 0 {
		t.Fatalf("sweep: exit %d\n%s", r.code, r.stderr)
	}
	if n := buildCount(); n != 1 {
		t.Errorf("%d builds after the sweep, want 1: result files inside the checkout were uploaded as source\n%s", n, r.stderr)
	}
	var sw struct {
		Variants []struct {
			Name   string `json:"name"`
			Result struct {
				JobResults struct {
					Jobs map[string]jobResult `json:"jobs"`
				} `json:"jobResults"`
			} `json:"result"`
		} `json:"variants"`
	}
	b, err := os.ReadFile(sweepFile)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &sw); err != nil {
		t.Fatal(err)
	}
	if len(sw.Variants) != 2 {
		t.Fatalf("%d variants in %s, want 2", len(sw.Variants), sweepFile)
	}
	for _, v := range sw.Variants {
		if got := v.Result.JobResults.Jobs["load"].Environment["buildReused"]; got != true {
			t.Errorf("variant %s: buildReused %v, want true", v.Name, got)
		}
	}

	// The source itself changing still rebuilds.
	writeFile(t, checkout, "report.sh", resultFilesReport+"# changed\n")
	r = crankEnv(t, 2*time.Minute, env, "--config", cfg, "--scenario", "s", "--json", out)
	if r.code != 0 {
		t.Fatalf("run after a source change: exit %d\n%s", r.code, r.stderr)
	}
	if n := buildCount(); n != 2 {
		t.Errorf("%d builds after report.sh changed, want 2", n)
	}
}
