package testutil

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
)

// DockerEngine connects to the local engine, or fails (CI) / skips without one.
func DockerEngine(t testing.TB) *client.Client {
	t.Helper()
	cli, err := client.New(client.FromEnv) // the API version is negotiated by default
	if err == nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_, err = cli.Ping(ctx, client.PingOptions{NegotiateAPIVersion: true})
	}
	if err != nil {
		Missing(t, "a Docker engine: %v", err)
	}
	t.Cleanup(func() { cli.Close() })
	return cli
}

// DockerImageName is a unique dockerImageName for a test; the images the agent tags for it are removed after the test.
func DockerImageName(t testing.TB, cli *client.Client) string {
	t.Helper()
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	name := "crankshaft_e2e_" + hex.EncodeToString(b)
	t.Cleanup(func() {
		ctx := context.Background()
		for _, tag := range ImageTags(t, cli, name) {
			if _, err := cli.ImageRemove(ctx, tag, client.ImageRemoveOptions{Force: true, PruneChildren: true}); err != nil {
				t.Errorf("removing test image %s: %v", tag, err)
			}
		}
	})
	return name
}

// ImageTags lists the tags of benchmarks_<name> images.
func ImageTags(t testing.TB, cli *client.Client, name string) []string {
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

// ContainersOf lists the containers (running or not) of a job image: crank names them after it.
func ContainersOf(t testing.TB, cli *client.Client, name string) []string {
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

// FrameworkRepo makes a git repository shaped as TechEmpower's FrameworkBenchmarks: the folder
// frameworks/Go/crankshaft with a static (CGO_ENABLED=0) build of apps/plaintext (from the module
// at root) and crankshaft.dockerfile, a Dockerfile FROM scratch that copies it and runs it on
// port, metrics on metricsPort. dockerfile, when set, replaces that Dockerfile.
func FrameworkRepo(t testing.TB, root string, port, metricsPort int, dockerfile string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "FrameworkBenchmarks")
	fw := filepath.Join(dir, "frameworks", "Go", "crankshaft")
	if err := os.MkdirAll(fw, 0o755); err != nil {
		t.Fatal(err)
	}
	build := exec.Command("go", "build", "-trimpath", "-o", filepath.Join(fw, "plaintext"), "./apps/plaintext")
	build.Dir, build.Env = root, append(os.Environ(), "CGO_ENABLED=0")
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

// Sniffer builds the hostile job program of internal/testutil/sniffer, static (for an image FROM
// scratch), into dir and returns its path.
func Sniffer(t testing.TB, dir string) string {
	t.Helper()
	out := filepath.Join(dir, "sniffer")
	build := exec.Command("go", "build", "-trimpath", "-o", out, "github.com/crankshaft/crankshaft/internal/testutil/sniffer")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if b, err := build.CombinedOutput(); err != nil {
		t.Fatalf("static build of the sniffer: %v\n%s", err, b)
	}
	return out
}

// SnifferDockerfile runs the program Sniffer built, FROM scratch.
const SnifferDockerfile = "FROM scratch\nCOPY sniffer /sniffer\nENTRYPOINT [\"/sniffer\"]\n"
