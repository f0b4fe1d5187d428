package agent

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/crankshaft/crankshaft/internal/api"
)

func TestTokenOnEveryEndpointButHealth(t *testing.T) {
	t.Parallel()
	ta := newTestAgent(t, Options{Token: "s3cret", Hardware: "test-rig"})
	ctx := context.Background()
	anon, err := api.NewClient(ta.c.URL(), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	wrong, _ := api.NewClient(ta.c.URL(), "s3cres", nil)
	if err := anon.Health(ctx); err != nil {
		t.Errorf("health without a token: %v, want 200", err)
	}
	if _, err := anon.Info(ctx); statusCode(err) != http.StatusUnauthorized {
		t.Errorf("info without a token: %v, want 401", err)
	}
	if _, err := wrong.Submit(ctx, api.Job{Executable: "sh"}); statusCode(err) != http.StatusUnauthorized {
		t.Errorf("submit with a wrong token: %v, want 401", err)
	}
	if _, err := anon.Status(ctx, "x"); statusCode(err) != http.StatusUnauthorized {
		t.Errorf("status without a token: %v, want 401", err)
	}
	info, err := ta.c.Info(ctx)
	if err != nil {
		t.Fatalf("info with the token: %v", err)
	}
	if info.OS != runtime.GOOS || info.Arch != runtime.GOARCH || info.Cores < 1 || info.Hardware != "test-rig" ||
		info.GoVersion != runtime.Version() || info.Version == "" || info.MemoryMB <= 0 || info.KernelRelease == "" {
		t.Errorf("info = %+v", info)
	}
}

func tarGz(t *testing.T, hdrs ...*tar.Header) *bytes.Buffer {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for _, h := range hdrs {
		body := h.Linkname
		if h.Typeflag == tar.TypeReg {
			h.Linkname, h.Size = "", int64(len(body))
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if h.Typeflag == tar.TypeReg {
			_, _ = tw.Write([]byte(body))
		}
	}
	_ = tw.Close()
	_ = zw.Close()
	return &buf
}

// file is a regular tar entry; its body rides in Linkname until tarGz writes it.
func file(name, body string, mode int64) *tar.Header {
	return &tar.Header{Name: name, Typeflag: tar.TypeReg, Mode: mode, Linkname: body}
}

func TestUploadRejectsEscapes(t *testing.T) {
	t.Parallel()
	ta := newTestAgent(t, Options{MaxUpload: 64 << 10})
	ctx := context.Background()
	cases := map[string]*bytes.Buffer{
		"dot-dot":        tarGz(t, file("../escape", "owned", 0o644)),
		"symlink escape": tarGz(t, &tar.Header{Name: "link", Typeflag: tar.TypeSymlink, Linkname: "../escape"}),
		"absolute":       tarGz(t, file("/tmp/crank-agent-escape-abs", "owned", 0o644)),
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
		big := tarGz(t, file("noise.bin", string(noise), 0o644))
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
		return tarGz(t, file("app.sh", "#!/bin/sh\necho \"app says $(cat built) GOOS=$GOOS_SEEN\"\n", 0o755))
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
