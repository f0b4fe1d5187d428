package e2e

import (
	"archive/tar"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/moby/moby/client"

	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/testutil"
)

// TestDockerLoadSecondManifest: a dockerLoad tarball is checked by the tags its manifest.json sets,
// but a tarball may hold manifest.json twice: the check reads the first (this job's own tag), and
// docker load, which extracts the whole tarball, keeps the last. A second audit of issue 25 put
// another job's cache tag (benchmarks_<name>:k<key>, printed in that job's output) in the second
// one, with the label crankshaft.image=<key>: the image was replaced under its tag, and the other
// job's next run said "image reused from the cache" and ran the attacker's image.
func TestDockerLoadSecondManifest(t *testing.T) {
	cli := testutil.DockerEngine(t)
	name := testutil.DockerImageName(t, cli)
	ctx := context.Background()
	ap := runAgent(t, nil, "http://127.0.0.1:"+strconv.Itoa(freePort(t)), "--token", testToken)
	ap.waitHealthy(t, nil, 20*time.Second)
	c := ap.client(t, testToken, nil)
	run := func(job api.Job, src *bytes.Buffer) string {
		t.Helper()
		id, err := c.Submit(ctx, job)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Upload(ctx, id, src); err != nil {
			t.Fatal(err)
		}
		if err := c.Start(ctx, id); err != nil {
			t.Fatal(err)
		}
		// The images have no command: the job fails at docker create, after its image is made.
		waitJobState(t, c, id, 2*time.Minute, api.StateFailed, api.StateRunning, api.StateStopped)
		out, err := c.Output(ctx, id, 0)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	out := run(api.Job{Name: "victim", Source: &api.Source{LocalFolder: "app", DockerFile: "Dockerfile", DockerImageName: name}},
		testutil.TarGz(t, testutil.TarFile("Dockerfile", "FROM scratch\nCOPY f /f\n", 0o644), testutil.TarFile("f", "victim\n", 0o644)))
	m := regexp.MustCompile(`benchmarks_` + name + `:k([0-9a-f]{16})`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no cache tag in the victim's output:\n%s", out)
	}
	victimTag, key := m[0], m[1]
	before, err := cli.ImageInspect(ctx, victimTag)
	if err != nil {
		t.Fatal(err)
	}

	evil := attackerTarball(t, cli, "benchmarks_"+name+":attacker", key, victimTag)
	out = run(api.Job{Name: "attacker", Source: &api.Source{LocalFolder: "img", DockerLoad: "img.tar", DockerImageName: "benchmarks_" + name + ":attacker"}},
		testutil.TarGz(t, testutil.TarFile("img.tar", evil, 0o644)))
	after, err := cli.ImageInspect(ctx, victimTag)
	if err != nil {
		t.Fatal(err)
	}
	if after.ID != before.ID {
		// The victim's image lost its tag: DockerImageName's clean-up does not see it.
		if _, err := cli.ImageRemove(ctx, before.ID, client.ImageRemoveOptions{Force: true, PruneChildren: true}); err != nil {
			t.Errorf("removing the victim's untagged image %s: %v", before.ID, err)
		}
		t.Errorf("a dockerLoad tarball with a second manifest.json replaced %s (image %s, now %s); the attacker's output:\n%s",
			victimTag, before.ID, after.ID, out)
	}
}

// attackerTarball builds an image labelled as the cache's build key and returns docker save's
// tarball of it with two manifest.json entries: the first tags it as tag, the last as victimTag.
func attackerTarball(t *testing.T, cli *client.Client, tag, key, victimTag string) string {
	t.Helper()
	ctx := context.Background()
	res, err := cli.ImageBuild(ctx, testutil.TarGz(t, testutil.TarFile("Dockerfile", "FROM scratch\nCOPY g /g\n", 0o644),
		testutil.TarFile("g", "attacker\n", 0o644)), client.ImageBuildOptions{Tags: []string{tag}, Remove: true,
		Labels: map[string]string{"crankshaft.image": key}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = io.Copy(io.Discard, res.Body)
	res.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	saved, err := cli.ImageSave(ctx, []string{tag})
	if err != nil {
		t.Fatal(err)
	}
	defer saved.Close()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	add := func(name string, body []byte) {
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write(body); err != nil {
			t.Fatal(err)
		}
	}
	var manifest []map[string]any
	tr := tar.NewReader(saved)
	for i := 0; ; i++ {
		if i > 1000 {
			t.Fatal("docker save wrote more than 1000 entries")
		}
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		switch h.Name {
		case "manifest.json":
			if err := json.Unmarshal(body, &manifest); err != nil || len(manifest) != 1 {
				t.Fatalf("docker save's manifest.json %s: %v", body, err)
			}
			manifest[0]["RepoTags"] = []string{tag}
			first, _ := json.Marshal(manifest)
			add("manifest.json", first) // what the agent's check reads
		case "repositories":
		default:
			if err := tw.WriteHeader(h); err != nil {
				t.Fatal(err)
			}
			if _, err := tw.Write(body); err != nil {
				t.Fatal(err)
			}
		}
	}
	if manifest == nil {
		t.Fatal("docker save wrote no manifest.json")
	}
	manifest[0]["RepoTags"] = []string{victimTag}
	last, _ := json.Marshal(manifest)
	add("manifest.json", last) // what docker load keeps
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}
