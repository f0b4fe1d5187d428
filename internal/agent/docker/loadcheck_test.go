package docker

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"strings"
	"testing"

	"github.com/crankshaft/crankshaft/internal/testutil"
)

func saveTarball(t *testing.T, manifest string, gz bool) *bytes.Buffer {
	t.Helper()
	var b bytes.Buffer
	var tw *tar.Writer
	var zw *gzip.Writer
	if gz {
		zw = gzip.NewWriter(&b)
		tw = tar.NewWriter(zw)
	} else {
		tw = tar.NewWriter(&b)
	}
	for name, body := range map[string]string{"layer.tar": "x", "manifest.json": manifest} {
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(body))}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(body)); err != nil {
			t.Fatal(err)
		}
	}
	tw.Close()
	if zw != nil {
		zw.Close()
	}
	return &b
}

// TestLoadTagsChecked: a docker save tarball whose manifest tags another job's image (its build
// cache tag, or its name) is refused before docker load; one tagging the job's own image loads
// (issue 25, 2: a victim's next job said "image reused from the cache" and ran the attacker's).
func TestLoadTagsChecked(t *testing.T) {
	for _, c := range []struct {
		tags string
		gz   bool
		want string
	}{
		{`["benchmarks_mine:latest"]`, false, ""},
		{`["benchmarks_mine:v2"]`, true, ""},
		{`["benchmarks_victim:k0123456789abcdef"]`, false, `tags "benchmarks_victim:k0123456789abcdef"`},
		{`["benchmarks_mine:k0123456789abcdef"]`, true, "not this job's image"},
		{`["benchmarks_victim:latest"]`, false, "not this job's image"},
	} {
		_, err := checkLoadTags(saveTarball(t, `[{"Config":"c.json","RepoTags":`+c.tags+`,"Layers":["layer.tar"]}]`, c.gz), "benchmarks_mine")
		if (c.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%s (gzip %v): %v, want %q", c.tags, c.gz, err, c.want)
		}
	}
	if _, err := checkLoadTags(strings.NewReader("not a tarball"), "benchmarks_mine"); err == nil {
		t.Error("a file that is no tarball was accepted")
	}
}

// TestLoadTarballReadWhole: docker load extracts the whole tarball and reads manifest.json (and
// index.json) after: a second manifest under any spelling, a manifest that is a link, or an OCI
// index naming another image is refused (issue 25's second audit: the first manifest was checked,
// docker load kept the last, and a victim's cached image was replaced under its tag).
func TestLoadTarballReadWhole(t *testing.T) {
	mine := `[{"Config":"c.json","RepoTags":["benchmarks_mine:latest"],"Layers":["layer.tar"]}]`
	theirs := `[{"Config":"c.json","RepoTags":["benchmarks_victim:k0123456789abcdef"],"Layers":["layer.tar"]}]`
	for _, c := range []struct {
		name    string
		entries []testutil.TarEntry
		want    string
	}{
		{"second manifest", []testutil.TarEntry{{Name: "manifest.json", Body: mine}, {Name: "manifest.json", Body: theirs}}, "holds manifest.json twice"},
		{"./ spelling", []testutil.TarEntry{{Name: "manifest.json", Body: mine}, {Name: "./manifest.json", Body: mine}}, "holds manifest.json twice"},
		{"dot-dot spelling", []testutil.TarEntry{{Name: "manifest.json", Body: mine}, {Name: "x/../manifest.json", Body: mine}}, "holds manifest.json twice"},
		{"link", []testutil.TarEntry{{Name: "m", Body: theirs}, testutil.TarSymlink("manifest.json", "m")}, "not as a plain file"},
		{"index naming another", []testutil.TarEntry{{Name: "manifest.json", Body: mine},
			{Name: "index.json", Body: `{"manifests":[{"annotations":{"io.containerd.image.name":"docker.io/library/benchmarks_victim:latest"}}]}`}}, "not this job's image"},
		{"index of its own", []testutil.TarEntry{{Name: "manifest.json", Body: mine},
			{Name: "index.json", Body: `{"manifests":[{"annotations":{"io.containerd.image.name":"docker.io/library/benchmarks_mine:latest","org.opencontainers.image.ref.name":"latest"}}]}`}}, ""},
	} {
		var plain bytes.Buffer
		zr, err := gzip.NewReader(testutil.TarGz(t, c.entries...))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := plain.ReadFrom(zr); err != nil {
			t.Fatal(err)
		}
		tags, err := checkLoadTags(&plain, "benchmarks_mine")
		if (c.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%s: %v (tags %v), want %q", c.name, err, tags, c.want)
		}
	}
}
