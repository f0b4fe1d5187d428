package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/testutil"
)

// namedSourcesYAML is a crank file of the shape of aspnet/Benchmarks' TLS scenarios: named
// sources (two local folders, relative to the file, and a bare repository) and buildFiles; the
// build sums a number from each source's folder and the job reports it in crank's
// #StartJobStatistics block.
const namedSourcesYAML = `jobs:
  sum:
    executable: /bin/sh
    arguments: report.sh
    waitForExit: true
    buildCommand: echo $(( $(cat first/n) + $(cat deep/second/sub/n) + $(sh repo/app.sh) )) > built
    sources:
      first: {localFolder: a}
      second: {localFolder: b, destinationFolder: deep/second}
      repo: {repository: 'file://REPO', branchOrCommit: main}
    buildFiles: ['report.sh']
scenarios:
  s:
    load: {job: sum, endpoints: []}
`

const reportScript = `echo '#StartJobStatistics'
echo '{"Metadata":[{"Source":"sum","Name":"sources/sum","Aggregate":"max","Reduce":"max","Format":"n0","ShortDescription":"sum","LongDescription":"sum"}],"Measurements":[{"Timestamp":"2026-01-01T00:00:00Z","Name":"sources/sum","Value":'$(cat built)'}]}'
echo '#EndJobStatistics'
`

// TestNamedSourcesWithCrank runs that file with bin/crank on the embedded agent: the result is
// the sum of the three sources; the same sources again reuse the build; one changed rebuilds.
func TestNamedSourcesWithCrank(t *testing.T) {
	repo, _ := testutil.GitRepo(t, "#!/bin/sh\necho 300\n")
	bare := filepath.Join(t.TempDir(), "repo.git")
	if out, err := exec.Command("git", "clone", "--quiet", "--bare", repo, bare).CombinedOutput(); err != nil {
		t.Fatalf("git clone --bare: %v\n%s", err, out)
	}
	dir := t.TempDir()
	write := func(rel, body string) {
		t.Helper()
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("job.yml", strings.ReplaceAll(namedSourcesYAML, "REPO", bare))
	write("report.sh", reportScript)
	write("a/n", "1")
	write("b/sub/n", "20")
	env := []string{"XDG_CACHE_HOME=" + t.TempDir()}
	run := func() jobResult {
		t.Helper()
		out := filepath.Join(t.TempDir(), "out.json")
		r := crankEnv(t, 2*time.Minute, env, "--config", filepath.Join(dir, "job.yml"), "--scenario", "s", "--json", out)
		if r.code != 0 {
			t.Fatalf("exit %d\n%s", r.code, r.stderr)
		}
		return readJobs(t, out)["load"]
	}
	if got := run(); got.Results["sources/sum"] != 321 || got.Results["benchmarks/build-time"] <= 0 {
		t.Fatalf("first run: %v, want sources/sum 1+20+300 and a build", got.Results)
	}
	if got := run(); got.Results["sources/sum"] != 321 || got.Environment["buildReused"] != true {
		t.Errorf("same sources: %v, buildReused %v, want the build reused", got.Results, got.Environment["buildReused"])
	}
	write("b/sub/n", "50")
	if got := run(); got.Results["sources/sum"] != 351 || got.Environment["buildReused"] == true {
		t.Errorf("sources.second changed: %v, buildReused %v, want 1+50+300 from a new build", got.Results, got.Environment["buildReused"])
	}
}
