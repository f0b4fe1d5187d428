package e2e

import (
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/testutil"
)

// snapshot extracts the repository's last commit (git archive HEAD) into a folder: a source that
// does not change while the test runs, whatever else is edited in the working tree.
func snapshot(t *testing.T) string {
	t.Helper()
	dir, tarball := t.TempDir(), filepath.Join(t.TempDir(), "head.tar")
	for _, argv := range [][]string{{"git", "archive", "--format=tar", "-o", tarball, "HEAD"}, {"tar", "-xf", tarball, "-C", dir}} {
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Dir = testEnv.root
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Skipf("no snapshot of the repository: %v: %v\n%s", argv, err, out)
		}
	}
	return dir
}

// TestBuildReusedAcrossCrankRuns: two crank runs of the plaintext scenario on the embedded agent
// with the same source; the second reuses the first's build from the user's cache folder, and
// takes its source from there instead of an upload.
func TestBuildReusedAcrossCrankRuns(t *testing.T) {
	src := snapshot(t)
	// A cache folder of its own for crank's builds, and Go's own cache kept: with XDG_CACHE_HOME
	// alone Go's moved there too, empty, and the first build compiled every package again (49 s
	// of this test's 58 in a gate run).
	env := []string{"XDG_CACHE_HOME=" + t.TempDir(), "GOCACHE=" + goEnv(t, "GOCACHE"), "GOFLAGS=-buildvcs=false"}
	var stderr string
	run := func() jobResult { // metricsPort=0: no second port to collide with other tests' sockets
		out := filepath.Join(t.TempDir(), "out.json")
		r := crankEnv(t, 3*time.Minute, env, "--no-probe", "--config", "scenarios/plaintext.yml", "--scenario", "plaintext",
			"--variable", "duration=1", "--variable", "warmup=0", "--variable", "serverPort="+strconv.Itoa(freePort(t)), "--variable", "metricsPort=0",
			"--application.source.localFolder", src, "--json", out)
		if r.code != 0 {
			t.Fatalf("exit %d\n%s", r.code, r.stderr)
		}
		stderr = r.stderr
		return readJobs(t, out)["application"]
	}
	first := run()
	if bt := first.Results["benchmarks/build-time"]; bt <= 0 || first.Environment["buildReused"] != nil {
		t.Fatalf("first run: build-time %v, buildReused %v", bt, first.Environment["buildReused"])
	}
	second := run()
	if bt, ok := second.Results["benchmarks/build-time"]; !ok || bt != 0 || second.Environment["buildReused"] != true {
		t.Fatalf("second run: build-time %v (%v), buildReused %v", bt, ok, second.Environment["buildReused"])
	}
	// the source itself came from the cache: nothing packed nor uploaded (issue 47)
	if !strings.Contains(stderr, "taken from the build cache") || strings.Contains(stderr, "[application] uploading") {
		t.Errorf("second run uploaded its source:\n%s", stderr)
	}
	t.Logf("build %.0f ms, then reused", first.Results["benchmarks/build-time"])
}

// gitRepo creates a repository with two commits of app.sh and returns it and the first commit.
// The second commit's app.sh fails (exit 3), so a job that succeeds ran the first.
func gitRepo(t *testing.T) (dir, first string) {
	t.Helper()
	dir, commits := testutil.GitRepo(t, "#!/bin/sh\necho \"version one\"\n", "#!/bin/sh\necho \"version two\"\nexit 3\n")
	return dir, commits[0]
}

// TestGitSourceAtCommit: a job whose source is a git repository (file:// URL) at a given commit,
// cloned and built by the embedded agent; the second run, naming it crank's way (branch#commit),
// reuses the build of that commit.
func TestGitSourceAtCommit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		testutil.Missing(t, "git is not installed")
	}
	repo, first := gitRepo(t)
	cfg := shellJobs(t, t.TempDir(), `
  fromgit:
    application:
      job: sleeper
    load:
      job: quick
      source:
        repository: file://`+repo+`
        branchOrCommit: `+first+`
      buildCommand: cp app.sh app
      executable: ./app
      arguments: ''
`)
	env := []string{"XDG_CACHE_HOME=" + t.TempDir()}
	for i, wantReused := range []bool{false, true} {
		out := filepath.Join(t.TempDir(), "out.json")
		args := []string{"--config", cfg, "--scenario", "fromgit", "--json", out}
		if i == 1 {
			args = append(args, "--load.source.branchOrCommit", "main#"+first)
		}
		r := crankEnv(t, time.Minute, env, args...)
		if r.code != 0 {
			t.Fatalf("run %d: exit %d\n%s", i, r.code, r.stderr)
		}
		load := readJobs(t, out)["load"]
		if reused := load.Environment["buildReused"] == true; reused != wantReused {
			t.Errorf("run %d: buildReused %v, want %v", i, reused, wantReused)
		}
		if _, ok := load.Results["benchmarks/build-time"]; !ok {
			t.Errorf("run %d: no build time in %v", i, load.Results)
		}
	}
}

// goEnv is go env's value of name.
func goEnv(t *testing.T, name string) string {
	t.Helper()
	out, err := exec.Command("go", "env", name).Output()
	if err != nil {
		t.Fatalf("go env %s: %v", name, err)
	}
	return strings.TrimSpace(string(out))
}
