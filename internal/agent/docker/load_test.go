package docker

import (
	"archive/tar"
	"bytes"
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/moby/moby/client"

	"github.com/crankshaft/crankshaft/internal/agent/output"
	"github.com/crankshaft/crankshaft/internal/agent/runtime"
	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/testutil"
)

// buildImage builds an image FROM scratch holding marker, tagged tag, and returns its id.
func buildImage(t *testing.T, cli *client.Client, tag, marker string) string {
	t.Helper()
	var b bytes.Buffer
	tw := tar.NewWriter(&b)
	for name, body := range map[string]string{"Dockerfile": "FROM scratch\nCOPY marker /marker\nCMD [\"/marker\"]\n", "marker": marker} {
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(body))}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(body)); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	res, err := cli.ImageBuild(ctx, &b, client.ImageBuildOptions{Tags: []string{tag}, Remove: true, ForceRemove: true})
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if err := readMessages(res.Body, io.Discard); err != nil {
		t.Fatalf("building %s: %v", tag, err)
	}
	in, err := cli.ImageInspect(ctx, tag)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { // an error is expected: already gone, or held by a child a later cleanup removes
		_, _ = cli.ImageRemove(context.Background(), in.ID, client.ImageRemoveOptions{Force: true, PruneChildren: true})
	})
	return in.ID
}

// loadJob is a dockerLoad job of the tarball img.tar in dir, for the image name.
func loadJob(t *testing.T, dir, name, identity string) *runtime.Job {
	return &runtime.Job{ID: "load", Dir: dir, Identity: identity, Out: output.New(0), Warn: func(string) {},
		Log: slog.New(slog.NewTextHandler(t.Output(), nil)), SetBuild: func(float64, bool) {},
		Spec: api.Job{Name: "load", Source: &api.Source{LocalFolder: ".", DockerLoad: "img.tar", DockerImageName: name}}}
}

// TestDockerLoadLabelledAndPruned (issue 25, 2): a dockerLoad job's image carries its cache key and
// the agent's Dir as labels under name:k<key>, the tarball's own tag removed; the same job reuses
// it; an image another job put under that tag without the key's label is not reused (replayed: the
// victim ran the attacker's image); and loaded images are pruned as built ones are.
func TestDockerLoadLabelledAndPruned(t *testing.T) {
	cli := testutil.DockerEngine(t)
	var loadedID string
	t.Cleanup(func() { // last: once the test's tags are gone, the loaded image is no one's parent
		if _, err := cli.ImageRemove(context.Background(), loadedID, client.ImageRemoveOptions{Force: true, PruneChildren: true}); err != nil && !strings.Contains(err.Error(), "No such image") {
			t.Errorf("removing the loaded image: %v", err)
		}
	})
	name := "benchmarks_" + testutil.DockerImageName(t, cli)
	ctx := context.Background()
	dir := t.TempDir()
	loadedID = buildImage(t, cli, name+":latest", "victim")
	save, err := cli.ImageSave(ctx, []string{name + ":latest"})
	if err != nil {
		t.Fatal(err)
	}
	data, err := io.ReadAll(save)
	save.Close()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "img.tar"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := cli.ImageRemove(ctx, name+":latest", client.ImageRemoveOptions{PruneChildren: true}); err != nil {
		t.Fatal(err)
	}
	r := New(Options{Dir: t.TempDir(), ImageCacheMaxBytes: 1, Logger: slog.New(slog.NewTextHandler(t.Output(), nil))})

	j := loadJob(t, dir, name, "upload:1")
	if err := r.Prepare(ctx, j); err != nil {
		t.Fatal(err)
	}
	key := cacheKey("dockerLoad", "upload:1", "img.tar", name)
	if j.Program != name+":k"+key {
		t.Fatalf("image %q, want %s:k%s", j.Program, name, key)
	}
	in, err := cli.ImageInspect(ctx, j.Program)
	if err != nil {
		t.Fatal(err)
	}
	if in.Config.Labels[labelImage] != key || in.Config.Labels[labelDir] != r.opts.Dir || in.ID == loadedID {
		t.Errorf("loaded image %s: labels %v, want %s=%s and %s=%s on an image over the loaded %s", in.ID, in.Config.Labels,
			labelImage, key, labelDir, r.opts.Dir, loadedID)
	}
	if tags := testutil.ImageTags(t, cli, strings.TrimPrefix(name, "benchmarks_")); !slices.Equal(tags, []string{j.Program}) {
		t.Errorf("tags %v, want the labelled image's only", tags)
	}

	again := loadJob(t, dir, name, "upload:1")
	if err := r.Prepare(ctx, again); err != nil {
		t.Fatal(err)
	}
	if out := string(again.Out.Since(0)); !strings.Contains(out, "image reused from the cache") {
		t.Errorf("the same load again: %q, want the image reused", out)
	}

	// Another job's image under the victim's tag, without the key's label, is not reused.
	planted := buildImage(t, cli, j.Program, "attacker")
	victim := loadJob(t, dir, name, "upload:1")
	if err := r.Prepare(ctx, victim); err != nil {
		t.Fatal(err)
	}
	if out := string(victim.Out.Since(0)); strings.Contains(out, "reused") || !strings.Contains(out, "docker load") {
		t.Errorf("with an unlabelled image under the tag: %q, want the tarball loaded again", out)
	}
	if in, err := cli.ImageInspect(ctx, victim.Program); err != nil || in.ID == planted || in.Config.Labels[labelImage] != key {
		t.Errorf("the victim runs %s (planted %s, labels %v, err %v), want its own labelled image", in.ID, planted, in.Config.Labels, err)
	}

	// Pruned as built images are: with room for one, another load evicts the first.
	other := loadJob(t, dir, name, "upload:2")
	if err := r.Prepare(ctx, other); err != nil {
		t.Fatal(err)
	}
	if _, err := cli.ImageInspect(ctx, j.Program); err == nil {
		t.Errorf("%s still cached after a second load with room for one image", j.Program)
	}
	if _, err := cli.ImageInspect(ctx, other.Program); err != nil {
		t.Errorf("the image just loaded was pruned: %v", err)
	}
}
