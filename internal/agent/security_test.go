package agent

import (
	"bytes"
	"context"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/crankshaft/crankshaft/internal/testutil"

	"github.com/crankshaft/crankshaft/internal/api"
)

func TestUploadRejectsEscapes(t *testing.T) {
	t.Parallel()
	ta := newTestAgent(t, Options{MaxUpload: 64 << 10})
	ctx := context.Background()
	cases := map[string]*bytes.Buffer{
		"dot-dot":        testutil.TarGz(t, testutil.TarFile("../escape", "owned", 0o644)),
		"symlink escape": testutil.TarGz(t, testutil.TarSymlink("link", "../escape")),
		"absolute":       testutil.TarGz(t, testutil.TarFile("/tmp/crank-agent-escape-abs", "owned", 0o644)),
	}
	for name, body := range cases {
		t.Run(name, func(t *testing.T) {
			id, err := ta.c.Submit(ctx, api.Job{Executable: "sh", Source: &api.Source{LocalFolder: "."}})
			if err != nil {
				t.Fatal(err)
			}
			err = ta.c.Upload(ctx, id, body)
			if statusCode(err) != http.StatusBadRequest {
				t.Fatalf("upload: %v, want 400", err)
			}
			for _, p := range []string{filepath.Join(ta.Dir(), "escape"), "/tmp/crank-agent-escape-abs"} {
				if _, err := os.Lstat(p); !os.IsNotExist(err) {
					t.Errorf("%s exists after a rejected upload", p)
				}
			}
			if err := ta.c.Start(ctx, id); statusCode(err) != http.StatusConflict {
				t.Errorf("start after a failed upload: %v, want 409 (still waiting for its source)", err)
			}
		})
	}
	t.Run("too large", func(t *testing.T) {
		id, err := ta.c.Submit(ctx, api.Job{Executable: "sh", Source: &api.Source{LocalFolder: "."}})
		if err != nil {
			t.Fatal(err)
		}
		noise := make([]byte, 100<<10) // incompressible, so the tar.gz is over the cap too
		rng := rand.New(rand.NewPCG(1, 2))
		for i := range noise {
			noise[i] = byte(rng.Uint32())
		}
		big := testutil.TarGz(t, testutil.TarFile("noise.bin", string(noise), 0o644))
		if err := ta.c.Upload(ctx, id, big); statusCode(err) != http.StatusRequestEntityTooLarge {
			t.Errorf("upload of 100 KiB with a 64 KiB cap: %v, want 413", err)
		}
	})
}

func TestUploadBuildAndReuse(t *testing.T) {
	t.Parallel()
	ta := newTestAgent(t, Options{})
	ctx := context.Background()
	src := func() *bytes.Buffer {
		return testutil.TarGz(t, testutil.TarFile("app.sh", "#!/bin/sh\necho \"app says $(cat built) GOOS=$GOOS_SEEN\"\n", 0o755))
	}
	job := api.Job{Executable: "./app", WaitForExit: true,
		Source:       &api.Source{LocalFolder: "app", Hash: "sha256:abc"},
		BuildCommand: `cp app.sh app && echo "built-$$" > built && echo "$GOOS" > goos`}
	run := func() (api.JobStatus, string) {
		id, err := ta.c.Submit(ctx, job)
		if err != nil {
			t.Fatal(err)
		}
		if st, _ := ta.c.Status(ctx, id); st.State != api.StateWaiting {
			t.Errorf("before upload: state %s, want Waiting", st.State)
		}
		if err := ta.c.Start(ctx, id); statusCode(err) != http.StatusConflict {
			t.Errorf("start before upload: %v, want 409", err)
		}
		if err := ta.c.Upload(ctx, id, src()); err != nil {
			t.Fatal(err)
		}
		if err := ta.c.Start(ctx, id); err != nil {
			t.Fatal(err)
		}
		st := ta.waitState(t, id, api.StateStopped, api.StateFailed)
		out, _ := ta.c.Output(ctx, id, 0)
		goos, _ := os.ReadFile(filepath.Join(ta.Dir(), id, "goos"))
		if strings.TrimSpace(string(goos)) != runtime.GOOS {
			t.Errorf("build saw GOOS=%q, want %q", goos, runtime.GOOS)
		}
		return st, out
	}
	first, out1 := run()
	if first.State != api.StateStopped || first.BuildReused || !strings.Contains(out1, "app says built-") {
		t.Fatalf("first run: %+v, output %q", first, out1)
	}
	second, out2 := run()
	if second.State != api.StateStopped || !second.BuildReused || second.BuildTimeMs != 0 {
		t.Fatalf("second run: %+v", second)
	}
	said := func(out string) string {
		_, s, _ := strings.Cut(out, "app says ")
		return s
	}
	if said(out1) != said(out2) {
		t.Errorf("second run did not reuse the first build: %q vs %q", said(out1), said(out2))
	}
}
