package e2e

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/testutil"

	"github.com/crankshaft/crankshaft/internal/api"
)

const testToken = "s3cret-token-for-tests"

// TestTokenTwoAgents: agents with a token on 127.0.0.2 and 127.0.0.3; the plaintext scenario
// runs when crank has the token (environment or flag) and is refused, saying why, when it has not.
func TestTokenTwoAgents(t *testing.T) {
	port := strconv.Itoa(freePort(t))
	app := runAgent(t, nil, "http://127.0.0.2:"+port, "--token", testToken)
	load := runAgent(t, nil, "http://127.0.0.3:"+port, "--token", testToken)
	app.waitHealthy(t, nil, 15*time.Second)
	load.waitHealthy(t, nil, 15*time.Second)
	cfg := twoAgentProfile(t, app.url, load.url)
	args := []string{"--no-probe", "--config", cfg, "--scenario", "plaintext", "--profile", "two", "--variable", "duration=1",
		"--variable", "warmup=0", "--variable", "serverAddress=127.0.0.2", "--variable", "serverPort=" + strconv.Itoa(freePort(t)), "--variable", "metricsPort=0"}
	for _, c := range []struct {
		name  string
		env   []string
		extra []string
	}{
		{"CRANK_AGENT_TOKEN", []string{"CRANK_AGENT_TOKEN=" + testToken}, nil},
		{"--agent-token", nil, []string{"--agent-token", testToken}},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out.json")
			r := crankEnv(t, 3*time.Minute, c.env, append(append(args, c.extra...), "--json", out)...)
			if r.code != 0 {
				t.Fatalf("exit %d\n%s", r.code, r.stderr)
			}
			if rps := readJobs(t, out)["load"].Results["http/rps/mean"]; rps <= 0 {
				t.Errorf("rps %v", rps)
			}
		})
	}
	t.Run("no token", func(t *testing.T) {
		r := crankEnv(t, time.Minute, nil, args...)
		if r.code == 0 {
			t.Fatal("crank ran without the agents' token")
		}
		mustContain(t, "stderr", r.stderr, "401", "token", "CRANK_AGENT_TOKEN", app.url)
	})
	t.Run("wrong token", func(t *testing.T) {
		r := crankEnv(t, time.Minute, []string{"CRANK_AGENT_TOKEN=not-it"}, args...)
		if r.code == 0 {
			t.Fatal("crank ran with a wrong token")
		}
		mustContain(t, "stderr", r.stderr, "401", "token")
	})
}

// TestAgentRefusesOpenAddressWithoutToken: crank-agent on 0.0.0.0 without a token exits at once,
// saying why.
func TestAgentRefusesOpenAddressWithoutToken(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(testEnv.bins, "crank-agent"), "--url", "http://0.0.0.0:5010", "--dir", t.TempDir())
	cmd.Env = withoutEnv(os.Environ(), "CRANK_AGENT_TOKEN")
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() == 0 || ctx.Err() != nil {
		t.Fatalf("crank-agent: %v (want a non-zero exit)\n%s", err, out)
	}
	mustContain(t, "output", string(out), `refusing to listen on "0.0.0.0" without a token`, "--token", "--insecure")
}

// TestEndpointsNeedToken: every endpoint but /health answers 401 without the token or with a
// wrong one.
func TestEndpointsNeedToken(t *testing.T) {
	ap := runAgent(t, nil, fmt.Sprintf("http://127.0.0.1:%d", freePort(t)), "--token", testToken)
	ap.waitHealthy(t, nil, 15*time.Second)
	hc := &http.Client{Timeout: 5 * time.Second}
	for _, c := range []struct{ method, path, auth string }{
		{"GET", "/jobs", ""},
		{"POST", "/jobs", ""},
		{"GET", "/jobs", "Bearer wrong"},
		{"GET", "/jobs", testToken}, // no "Bearer "
		{"GET", "/info", ""},
		{"GET", "/jobs/0123456789abcdef", ""},
		{"DELETE", "/jobs/0123456789abcdef", ""},
	} {
		req, _ := http.NewRequest(c.method, ap.url+c.path, strings.NewReader(`{"executable":"sh"}`))
		if c.auth != "" {
			req.Header.Set("Authorization", c.auth)
		}
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("%s %s (Authorization %q): %d, want 401", c.method, c.path, c.auth, resp.StatusCode)
		}
	}
	resp, err := hc.Get(ap.url + "/health")
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("/health without a token: %v %v", resp, err)
	}
	resp.Body.Close()
	if _, err := ap.client(t, testToken, nil).Info(context.Background()); err != nil {
		t.Errorf("/info with the token: %v", err)
	}
}

// TestUploadEscapesRejected: an upload holding ../escape (or a link out) is refused with 400 and
// nothing is written outside the job folder; an upload over --max-upload is refused with 413.
func TestUploadEscapesRejected(t *testing.T) {
	ap := runAgent(t, nil, fmt.Sprintf("http://127.0.0.1:%d", freePort(t)), "--token", testToken, "--max-upload", "64KiB")
	ap.waitHealthy(t, nil, 15*time.Second)
	c := ap.client(t, testToken, nil)
	ctx := context.Background()
	cases := map[string][]testutil.TarEntry{
		"dot-dot":       {{Name: "../escape", Size: 5}},
		"deep dot-dot":  {{Name: "a/../../../escape", Size: 5}},
		"symlink out":   {testutil.TarSymlink("link", "../.."), {Name: "link/escape", Size: 5}},
		"absolute link": {testutil.TarSymlink("abs", ap.dir)},
	}
	for name, entries := range cases {
		t.Run(name, func(t *testing.T) {
			id, err := c.Submit(ctx, api.Job{Executable: "./app", Source: &api.Source{LocalFolder: "src"}})
			if err != nil {
				t.Fatal(err)
			}
			err = c.Upload(ctx, id, testutil.TarGz(t, entries...))
			var ae *api.AgentError
			if !errors.As(err, &ae) || ae.StatusCode != http.StatusBadRequest {
				t.Fatalf("upload: %v, want 400", err)
			}
			for _, p := range []string{filepath.Join(ap.dir, "escape"), filepath.Join(filepath.Dir(ap.dir), "escape")} {
				if _, err := os.Lstat(p); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("%s was written (%v)", p, err)
				}
			}
			if ents, _ := os.ReadDir(filepath.Join(ap.dir, id)); len(ents) != 0 {
				t.Errorf("the job folder keeps %d entries of the refused upload", len(ents))
			}
		})
	}
	t.Run("too big", func(t *testing.T) {
		id, err := c.Submit(ctx, api.Job{Executable: "./app", Source: &api.Source{LocalFolder: "src"}})
		if err != nil {
			t.Fatal(err)
		}
		big := make([]byte, 256<<10)
		_, _ = rand.Read(big) // random: gzip cannot make it smaller than 64 KiB
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		tw := tar.NewWriter(zw)
		_ = tw.WriteHeader(&tar.Header{Name: "big", Typeflag: tar.TypeReg, Mode: 0o644, Size: int64(len(big))})
		_, _ = tw.Write(big)
		_ = tw.Close()
		_ = zw.Close()
		err = c.Upload(ctx, id, &buf)
		var ae *api.AgentError
		if !errors.As(err, &ae) || ae.StatusCode != http.StatusRequestEntityTooLarge {
			t.Fatalf("upload of 256 KiB: %v, want 413", err)
		}
	})
}
