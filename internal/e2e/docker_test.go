package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/testutil"
)

// teConfig is a scenario whose application is a job shaped exactly as te.benchmarks.yml's, with
// crankshaft's wrk job as load.
func teConfig(t *testing.T, repo, image, dockerFile string, port, metricsPort int) string {
	t.Helper()
	cfg := filepath.Join(t.TempDir(), "te.yml")
	yml := `imports:
  - ` + filepath.Join(testEnv.root, "scenarios/jobs/wrk.yml") + `
jobs:
  crankshaft:
    source:
      repository: file://` + repo + `
      branchOrCommit: master
      dockerFile: ` + dockerFile + `
      dockerImageName: ` + image + `
      dockerContextDirectory: frameworks/Go/crankshaft/
    readyStateText: Application started
    arguments: --add-host="tfb-database:{{databaseServer}}"
    noClean: true
    metricsPort: ` + strconv.Itoa(metricsPort) + `
scenarios:
  plaintext:
    application:
      job: crankshaft
      variables:
        databaseServer: 127.0.0.1
    load:
      job: wrk
      variables:
        serverPort: ` + strconv.Itoa(port) + `
        path: /plaintext
        presetHeaders: plaintext
        duration: 2
        warmup: 0
`
	if err := os.WriteFile(cfg, []byte(yml), 0o644); err != nil {
		t.Fatal(err)
	}
	return cfg
}

// TestDockerTechEmpowerJob: a te.benchmarks.yml-shaped Docker job from a local git repository,
// under wrk, twice: results hold RPS, the container's CPU and memory; no container is left; the
// second run reuses the image.
func TestDockerTechEmpowerJob(t *testing.T) {
	cli := testutil.DockerEngine(t)
	if _, err := exec.LookPath("wrk"); err != nil {
		testutil.Missing(t, "wrk: %v", err)
	}
	image := testutil.DockerImageName(t, cli)
	ports := freePorts(t, 2)
	repo := testutil.FrameworkRepo(t, testEnv.root, ports[0], ports[1], "")
	cfg := teConfig(t, repo, image, "frameworks/Go/crankshaft/crankshaft.dockerfile", ports[0], ports[1])
	run := func() (map[string]jobResult, string) {
		out := filepath.Join(t.TempDir(), "out.json")
		r := crankEnv(t, 3*time.Minute, []string{"XDG_CACHE_HOME=" + t.TempDir()}, "--config", cfg, "--scenario", "plaintext", "--json", out)
		if r.code != 0 {
			t.Fatalf("exit %d\n%s", r.code, r.stderr)
		}
		if left := testutil.ContainersOf(t, cli, image); len(left) > 0 {
			t.Errorf("containers left after the run: %v", left)
		}
		return readJobs(t, out), r.stderr
	}
	first, _ := run()
	app, load := first["application"], first["load"]
	if rps := load.Results["wrk/rps/mean"]; rps <= 100 {
		t.Errorf("wrk RPS %v, want > 100 (load results %v)", rps, load.Results)
	}
	if cpu := app.Results["benchmarks/cpu"]; cpu <= 0 {
		t.Errorf("container CPU %v, want > 0 (%v)", cpu, app.Results)
	}
	if ws := app.Results["benchmarks/working-set"]; ws < 1 {
		t.Errorf("container working set %v MB, want at least 1", ws)
	}
	if bt := app.Results["benchmarks/build-time"]; bt <= 0 || app.Environment["buildReused"] != nil {
		t.Errorf("first run: build-time %v, buildReused %v", bt, app.Environment["buildReused"])
	}
	if _, ok := app.Results["runtime-counter/lock-contention"]; !ok {
		t.Errorf("no runtime counters from the container's metrics port: %v", app.Results)
	}
	tags := testutil.ImageTags(t, cli, image)
	second, _ := run()
	app = second["application"]
	if bt, ok := app.Results["benchmarks/build-time"]; !ok || bt != 0 || app.Environment["buildReused"] != true {
		t.Errorf("second run: build-time %v (%v), buildReused %v", bt, ok, app.Environment["buildReused"])
	}
	if after := testutil.ImageTags(t, cli, image); strings.Join(after, " ") != strings.Join(tags, " ") {
		t.Errorf("images after the second run %v, after the first %v", after, tags)
	}
	t.Logf("images %v; first run %.0f RPS, build %.0f ms", tags, first["load"].Results["wrk/rps/mean"], first["application"].Results["benchmarks/build-time"])
}

// TestDockerBuildFailures: a dockerFile that is not in the repository, and one whose build fails,
// fail the run quoting the build's last lines, and leave no container and no image.
func TestDockerBuildFailures(t *testing.T) {
	cli := testutil.DockerEngine(t)
	image := testutil.DockerImageName(t, cli)
	ports := freePorts(t, 2)
	repo := testutil.FrameworkRepo(t, testEnv.root, ports[0], ports[1], "FROM scratch\nCOPY plaintext /plaintext\nCOPY no-such-file /x\n")
	for _, c := range []struct{ dockerFile, want string }{
		{"frameworks/Go/crankshaft/missing.dockerfile", `dockerFile "frameworks/Go/crankshaft/missing.dockerfile" is not a file in the job's source`},
		{"frameworks/Go/crankshaft/crankshaft.dockerfile", "no-such-file"},
	} {
		cfg := teConfig(t, repo, image, c.dockerFile, ports[0], ports[1])
		r := crankEnv(t, 2*time.Minute, []string{"XDG_CACHE_HOME=" + t.TempDir()}, "--config", cfg, "--scenario", "plaintext")
		if r.code == 0 {
			t.Fatalf("%s: exit 0\n%s", c.dockerFile, r.stderr)
		}
		mustContain(t, "crank's error", r.stderr, c.want, "last output:")
		if left := testutil.ContainersOf(t, cli, image); len(left) > 0 {
			t.Errorf("%s: containers left: %v", c.dockerFile, left)
		}
		if left := testutil.ImageTags(t, cli, image); len(left) > 0 {
			t.Errorf("%s: images left: %v", c.dockerFile, left)
		}
	}
}
