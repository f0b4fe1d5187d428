package agent

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/testutil"
)

// TestNamedSourcesPlacedAndKeyed: a job waits for each named upload (saying which), places each
// named source in its folder (an upload, and a clone beside the uploads), reuses its build for the
// same sources and rebuilds when one changes.
func TestNamedSourcesPlacedAndKeyed(t *testing.T) {
	t.Parallel()
	repo, first := gitRepo(t)
	ta := newTestAgent(t, Options{})
	ctx := context.Background()
	run := func(b string) (api.JobStatus, string) {
		t.Helper()
		id, err := ta.c.Submit(ctx, api.Job{Executable: "/bin/sh", Arguments: `-c "cat built; sh r/app.sh"`, WaitForExit: true,
			BuildCommand: "cat a/n deep/b/n > built",
			Sources: []api.NamedSource{{Name: "a", LocalFolder: "x"}, {Name: "b", LocalFolder: "y", DestinationFolder: "deep/b"},
				{Name: "r", Repository: "file://" + repo, BranchOrCommit: first}}})
		if err != nil {
			t.Fatal(err)
		}
		if err := ta.c.UploadSource(ctx, id, "a", testutil.TarGz(t, testutil.TarFile("n", "from-a\n", 0o644))); err != nil {
			t.Fatal(err)
		}
		err = ta.c.Start(ctx, id)
		if statusCode(err) != http.StatusConflict || !strings.Contains(err.Error(), "waits for the upload of sources.b") {
			t.Fatalf("start before sources.b is uploaded: %v, want 409 naming it", err)
		}
		if err := ta.c.UploadSource(ctx, id, "b", testutil.TarGz(t, testutil.TarFile("n", b+"\n", 0o644))); err != nil {
			t.Fatal(err)
		}
		if err := ta.c.Start(ctx, id); err != nil {
			t.Fatal(err)
		}
		st := ta.waitState(t, id, api.StateStopped, api.StateFailed)
		out, _ := ta.c.Output(ctx, id, 0)
		if st.State != api.StateStopped {
			t.Fatalf("%s: %s\n%s", st.State, st.Error, out)
		}
		return st, out
	}
	st, out := run("from-b")
	if !strings.Contains(out, "from-a\nfrom-b\nversion one\n") || st.BuildReused {
		t.Fatalf("first run: reused %v\n%s", st.BuildReused, out)
	}
	if st, out = run("from-b"); !st.BuildReused || !strings.Contains(out, "from-a\nfrom-b\n") {
		t.Errorf("same sources: reused %v, want true\n%s", st.BuildReused, out)
	}
	if st, out = run("changed"); st.BuildReused || !strings.Contains(out, "from-a\nchanged\n") {
		t.Errorf("sources.b changed: reused %v, want a new build\n%s", st.BuildReused, out)
	}
}

// TestNamedSourcesRefuseEscapes: destinations outside the job folder are refused at submission,
// uploads are confined to their source's folder, and a destination that goes through a symlink
// (here one that resolves out of the job folder: b -> a/.. with a -> .) is refused for an upload
// and for a clone, with nothing written outside.
func TestNamedSourcesRefuseEscapes(t *testing.T) {
	t.Parallel()
	repo, _ := gitRepo(t)
	ta := newTestAgent(t, Options{MaxUpload: 64 << 10})
	ctx := context.Background()
	for _, s := range [][]api.NamedSource{
		{{Name: "x", LocalFolder: "x", DestinationFolder: "../x"}},
		{{Name: "x", LocalFolder: "x", DestinationFolder: "a/../../x"}},
		{{Name: "x", LocalFolder: "x", DestinationFolder: "/etc/x"}},
		{{Name: "x", LocalFolder: "x", DestinationFolder: "."}},
		{{Name: "..", LocalFolder: "x"}},
		{{Name: "x", LocalFolder: "x", Repository: "file://" + repo}},
		{{Name: "x", Repository: "--upload-pack=touch /tmp/owned"}},
		{{Name: "x", LocalFolder: "x"}, {Name: "y", LocalFolder: "y", DestinationFolder: "x/y"}},
	} {
		_, err := ta.c.Submit(ctx, api.Job{Executable: "sh", Sources: s})
		if statusCode(err) != http.StatusBadRequest || !strings.Contains(err.Error(), "sources.") {
			t.Errorf("sources %+v: %v, want 400 naming the source", s, err)
		}
	}
	id, err := ta.c.Submit(ctx, api.Job{Executable: "sh", Source: &api.Source{LocalFolder: "own"},
		Sources: []api.NamedSource{{Name: "n", LocalFolder: "n"}, {Name: "via", LocalFolder: "v", DestinationFolder: "b/x"},
			{Name: "r", Repository: "file://" + repo}}})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(ta.Dir(), id)
	for name, body := range map[string]func() error{
		"unknown name": func() error {
			return ta.c.UploadSource(ctx, id, "nope", testutil.TarGz(t, testutil.TarFile("f", "x", 0o644)))
		},
		"a repository": func() error {
			return ta.c.UploadSource(ctx, id, "r", testutil.TarGz(t, testutil.TarFile("f", "x", 0o644)))
		},
		"dot-dot": func() error {
			return ta.c.UploadSource(ctx, id, "n", testutil.TarGz(t, testutil.TarFile("../escape", "owned", 0o644)))
		},
		"symlink out of it": func() error {
			return ta.c.UploadSource(ctx, id, "n", testutil.TarGz(t, testutil.TarSymlink("l", "../own")))
		},
		"absolute": func() error {
			return ta.c.UploadSource(ctx, id, "n", testutil.TarGz(t, testutil.TarFile("/tmp/crank-named-abs", "x", 0o644)))
		},
	} {
		if err := body(); statusCode(err)/100 != 4 {
			t.Errorf("%s: %v, want a 4xx", name, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "escape")); err == nil {
		t.Error("dot-dot: a named upload wrote into the job folder's root")
	}
	if err := ta.c.UploadSource(ctx, id, "n", testutil.TarGz(t, testutil.TarFile("f", "ok", 0o644))); err != nil {
		t.Fatal(err)
	}
	if err := ta.c.UploadSource(ctx, id, "n", testutil.TarGz(t, testutil.TarFile("f", "again", 0o644))); statusCode(err) != http.StatusConflict {
		t.Errorf("second upload of sources.n: %v, want 409", err)
	}
	if err := ta.c.Upload(ctx, id, testutil.TarGz(t, testutil.TarSymlink("a", "."), testutil.TarSymlink("b", "a/.."))); err != nil {
		t.Fatalf("own source: %v", err)
	}
	err = ta.c.UploadSource(ctx, id, "via", testutil.TarGz(t, testutil.TarFile("planted", "owned", 0o644)))
	if statusCode(err) != http.StatusBadRequest || !strings.Contains(err.Error(), `"b" is a symlink`) {
		t.Errorf("upload through a symlink: %v, want 400", err)
	}
	if _, err := os.Stat(filepath.Join(ta.Dir(), "x")); err == nil {
		t.Error("an upload through a symlink wrote outside the job folder")
	}

	// A clone whose destination goes through the same kind of link fails the job, writing nothing.
	id, err = ta.c.Submit(ctx, api.Job{Executable: "sh", Source: &api.Source{LocalFolder: "own"},
		Sources: []api.NamedSource{{Name: "r", Repository: "file://" + repo, DestinationFolder: "b/r"}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := ta.c.Upload(ctx, id, testutil.TarGz(t, testutil.TarSymlink("a", "."), testutil.TarSymlink("b", "a/.."))); err != nil {
		t.Fatal(err)
	}
	if err := ta.c.Start(ctx, id); err != nil {
		t.Fatal(err)
	}
	st := ta.waitState(t, id, api.StateFailed, api.StateStopped)
	if st.State != api.StateFailed || !strings.Contains(st.Error, `sources.r`) || !strings.Contains(st.Error, `"b" is a symlink`) {
		t.Errorf("clone through a symlink: %s %q, want Failed naming it", st.State, st.Error)
	}
	if _, err := os.Stat(filepath.Join(ta.Dir(), "r")); err == nil {
		t.Error("a clone through a symlink landed outside the job folder")
	}
	if _, err := os.Stat(filepath.Join(ta.Dir(), id+cloneSuffix)); err == nil {
		t.Error("the clone's staging folder was left behind")
	}
}

// TestDockerJobFromNamedSource builds a Docker job as aspnet/Benchmarks' TLS scenarios do: the
// Dockerfile and its context are in a named source's folder (a repository cloned into "fw"), the
// job itself has no source; the same source again reuses the image.
func TestDockerJobFromNamedSource(t *testing.T) {
	t.Parallel()
	cli := testutil.DockerEngine(t)
	image := testutil.DockerImageName(t, cli)
	ports := testutil.FreePorts(t, 2)
	repo := testutil.FrameworkRepo(t, "../..", ports[0], ports[1], "")
	ta := newTestAgent(t, Options{})
	run := func() api.JobStatus {
		t.Helper()
		id := ta.submit(t, api.Job{Name: "tls", ReadyStateText: "Application started",
			Source: &api.Source{DockerImageName: image, DockerFile: "fw/frameworks/Go/crankshaft/crankshaft.dockerfile",
				DockerContextDirectory: "fw/frameworks/Go/crankshaft"},
			Sources: []api.NamedSource{{Name: "fw", Repository: "file://" + repo, BranchOrCommit: "master"}}})
		st := ta.waitState(t, id, api.StateRunning, api.StateFailed)
		if st.State != api.StateRunning {
			out, _ := ta.c.Output(context.Background(), id, 0)
			t.Fatalf("%s: %s\n%s", st.State, st.Error, out)
		}
		if err := ta.c.Delete(context.Background(), id); err != nil {
			t.Fatal(err)
		}
		return st
	}
	if st := run(); st.BuildReused {
		t.Errorf("first build reused an image")
	}
	if st := run(); !st.BuildReused {
		t.Errorf("same named source again: image not reused")
	}
}

// TestBuildFilesConfined: build files wait like sources, their archive is confined like a source's,
// they replace a source's file (not through a link: the link itself is replaced), and a folder on
// their way that is a symlink fails the job with nothing written outside its folder.
func TestBuildFilesConfined(t *testing.T) {
	t.Parallel()
	ta := newTestAgent(t, Options{MaxUpload: 64 << 10})
	ctx := context.Background()
	submit := func(own ...testutil.TarEntry) string {
		t.Helper()
		id, err := ta.c.Submit(ctx, api.Job{Executable: "/bin/sh", Arguments: "-c 'cat conf/n; cat f'", WaitForExit: true,
			Source: &api.Source{LocalFolder: "own"}, BuildFiles: []string{"n;conf"}})
		if err != nil {
			t.Fatal(err)
		}
		if err := ta.c.Upload(ctx, id, testutil.TarGz(t, own...)); err != nil {
			t.Fatal(err)
		}
		return id
	}
	id := submit(testutil.TarFile("f", "source's f\n", 0o644), testutil.TarFile("elsewhere", "kept\n", 0o644), testutil.TarSymlink("conf/n", "../elsewhere"))
	if err := ta.c.Start(ctx, id); statusCode(err) != http.StatusConflict || !strings.Contains(err.Error(), "buildFiles") {
		t.Fatalf("start before the build files: %v, want 409 naming buildFiles", err)
	}
	for name, body := range map[string]func() error{
		"dot-dot": func() error {
			return ta.c.UploadBuildFiles(ctx, id, testutil.TarGz(t, testutil.TarFile("../escape", "owned", 0o644)))
		},
		"absolute": func() error {
			return ta.c.UploadBuildFiles(ctx, id, testutil.TarGz(t, testutil.TarFile("/tmp/crank-files-abs", "x", 0o644)))
		},
	} {
		if err := body(); statusCode(err) != http.StatusBadRequest {
			t.Errorf("%s: %v, want 400", name, err)
		}
	}
	if err := ta.c.UploadBuildFiles(ctx, id, testutil.TarGz(t, testutil.TarFile("conf/n", "build file\n", 0o644), testutil.TarFile("f", "replaced\n", 0o644))); err != nil {
		t.Fatal(err)
	}
	if err := ta.c.Start(ctx, id); err != nil {
		t.Fatal(err)
	}
	st := ta.waitState(t, id, api.StateStopped, api.StateFailed)
	out, _ := ta.c.Output(ctx, id, 0)
	if st.State != api.StateStopped || !strings.Contains(out, "build file\nreplaced\n") {
		t.Fatalf("%s %q\n%s", st.State, st.Error, out)
	}
	if b, _ := os.ReadFile(filepath.Join(ta.Dir(), id, "elsewhere")); string(b) != "kept\n" {
		t.Errorf("a build file was written through the link it replaced: elsewhere = %q", b)
	}

	id = submit(testutil.TarSymlink("a", "."), testutil.TarSymlink("conf", "a/.."))
	if err := ta.c.UploadBuildFiles(ctx, id, testutil.TarGz(t, testutil.TarFile("conf/n", "owned", 0o644))); err != nil {
		t.Fatal(err)
	}
	if err := ta.c.Start(ctx, id); err != nil {
		t.Fatal(err)
	}
	st = ta.waitState(t, id, api.StateFailed, api.StateStopped)
	if st.State != api.StateFailed || !strings.Contains(st.Error, `buildFiles`) || !strings.Contains(st.Error, `"conf" is a symlink`) {
		t.Errorf("build files through a symlink: %s %q, want Failed naming it", st.State, st.Error)
	}
	if _, err := os.Stat(filepath.Join(ta.Dir(), "n")); err == nil {
		t.Error("a build file landed outside the job folder")
	}
}
