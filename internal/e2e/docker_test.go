package e2e

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/moby/moby/client"

	"github.com/crankshaft/crankshaft/internal/testutil"
)

// dockerEngine connects to the local engine, or fails (CI) / skips without one.
func dockerEngine(t *testing.T) *client.Client {
	t.Helper()
	cli, err := client.New(client.FromEnv, client.WithAPIVersionNegotiation())
	if err == nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_, err = cli.Ping(ctx, client.PingOptions{NegotiateAPIVersion: true})
	}
	if err != nil {
		testutil.Missing(t, "a Docker engine: %v", err)
	}
	t.Cleanup(func() { cli.Close() })
	return cli
}

// testImage is a unique dockerImageName; the images the agent tags for it are removed after the test.
func testImage(t *testing.T, cli *client.Client) string {
	t.Helper()
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	name := "crankshaft_e2e_" + hex.EncodeToString(b)
	t.Cleanup(func() {
		ctx := context.Background()
		for _, tag := range imageTags(t, cli, name) {
			if _, err := cli.ImageRemove(ctx, tag, client.ImageRemoveOptions{Force: true, PruneChildren: true}); err != nil {
				t.Errorf("removing test image %s: %v", tag, err)
			}
		}
	})
	return name
}

// imageTags lists the tags of benchmarks_<name> images.
func imageTags(t *testing.T, cli *client.Client, name string) []string {
	t.Helper()
	list, err := cli.ImageList(context.Background(), client.ImageListOptions{Filters: make(client.Filters).Add("reference", "benchmarks_"+name)})
	if err != nil {
		t.Fatal(err)
	}
	var tags []string
	for _, im := range list.Items {
		tags = append(tags, im.RepoTags...)
	}
	return tags
}

// containersOf lists the containers (running or not) of a job image: crank names them after it.
func containersOf(t *testing.T, cli *client.Client, name string) []string {
	t.Helper()
	list, err := cli.ContainerList(context.Background(), client.ContainerListOptions{All: true,
		Filters: make(client.Filters).Add("name", "benchmarks_"+name)})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range list.Items {
		names = append(names, strings.Join(c.Names, ","))
	}
	return names
}

// frameworkRepo makes a git repository shaped as TechEmpower's FrameworkBenchmarks: a framework
// folder with a Dockerfile FROM scratch copying a static build of apps/plaintext, listening on
// port (metrics on metricsPort). dockerfile, when set, replaces that Dockerfile.
func frameworkRepo(t *testing.T, port, metricsPort int, dockerfile string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "FrameworkBenchmarks")
	fw := filepath.Join(dir, "frameworks", "Go", "crankshaft")
	if err := os.MkdirAll(fw, 0o755); err != nil {
		t.Fatal(err)
	}
	build := exec.Command("go", "build", "-trimpath", "-o", filepath.Join(fw, "plaintext"), "./apps/plaintext")
	build.Dir, build.Env = testEnv.root, append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("static build of apps/plaintext: %v\n%s", err, out)
	}
	if dockerfile == "" {
		dockerfile = "FROM scratch\nCOPY plaintext /plaintext\nENTRYPOINT [\"/plaintext\"]\n" +
			`CMD ["--port", "` + strconv.Itoa(port) + `", "--metrics-port", "` + strconv.Itoa(metricsPort) + `"]` + "\n"
	}
	if err := os.WriteFile(filepath.Join(fw, "crankshaft.dockerfile"), []byte(dockerfile), 0o644); err != nil {
		t.Fatal(err)
	}
	git := func(args ...string) {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
			"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com", "GIT_CONFIG_GLOBAL=/dev/null")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "--quiet", "-b", "master")
	git("add", ".")
	git("commit", "--quiet", "-m", "crankshaft framework")
	return dir
}

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
	cli := dockerEngine(t)
	if _, err := exec.LookPath("wrk"); err != nil {
		testutil.Missing(t, "wrk: %v", err)
	}
	image := testImage(t, cli)
	ports := freePorts(t, 2)
	repo := frameworkRepo(t, ports[0], ports[1], "")
	cfg := teConfig(t, repo, image, "frameworks/Go/crankshaft/crankshaft.dockerfile", ports[0], ports[1])
	run := func() (map[string]jobResult, string) {
		out := filepath.Join(t.TempDir(), "out.json")
		r := crankEnv(t, 3*time.Minute, []string{"XDG_CACHE_HOME=" + t.TempDir()}, "--config", cfg, "--scenario", "plaintext", "--json", out)
		if r.code != 0 {
			t.Fatalf("exit %d\n%s", r.code, r.stderr)
		}
		if left := containersOf(t, cli, image); len(left) > 0 {
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
	tags := imageTags(t, cli, image)
	second, _ := run()
	app = second["application"]
	if bt, ok := app.Results["benchmarks/build-time"]; !ok || bt != 0 || app.Environment["buildReused"] != true {
		t.Errorf("second run: build-time %v (%v), buildReused %v", bt, ok, app.Environment["buildReused"])
	}
	if after := imageTags(t, cli, image); strings.Join(after, " ") != strings.Join(tags, " ") {
		t.Errorf("images after the second run %v, after the first %v", after, tags)
	}
	t.Logf("images %v; first run %.0f RPS, build %.0f ms", tags, first["load"].Results["wrk/rps/mean"], first["application"].Results["benchmarks/build-time"])
}

// TestDockerBuildFailures: a dockerFile that is not in the repository, and one whose build fails,
// fail the run quoting the build's last lines, and leave no container and no image.
func TestDockerBuildFailures(t *testing.T) {
	cli := dockerEngine(t)
	image := testImage(t, cli)
	ports := freePorts(t, 2)
	repo := frameworkRepo(t, ports[0], ports[1], "FROM scratch\nCOPY plaintext /plaintext\nCOPY no-such-file /x\n")
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
		if left := containersOf(t, cli, image); len(left) > 0 {
			t.Errorf("%s: containers left: %v", c.dockerFile, left)
		}
		if left := imageTags(t, cli, image); len(left) > 0 {
			t.Errorf("%s: images left: %v", c.dockerFile, left)
		}
	}
}
