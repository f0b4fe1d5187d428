package agent

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/testutil"
)

// serveAgent runs an agent behind its own Serve (the server crank-agent and crank use, with its
// timeouts) on 127.0.0.1:0.
func serveAgent(t *testing.T, opts Options) (*Agent, string) {
	t.Helper()
	if opts.Dir == "" {
		opts.Dir = t.TempDir()
	}
	a, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return a, "http://" + testutil.ServeLoopback(t, a.Serve)
}

// TestIdleConnectionsClosed: 3,000 idle unauthenticated connections stayed open. Now a
// connection that sends no request, half a request, or nothing after its last request is closed.
func TestIdleConnectionsClosed(t *testing.T) {
	t.Parallel()
	_, url := serveAgent(t, Options{HeaderTimeout: 200 * time.Millisecond, IdleTimeout: 200 * time.Millisecond})
	addr := strings.TrimPrefix(url, "http://")
	sends := map[string]string{
		"nothing":            "",
		"half a header":      "GET /jobs HTTP/1.1\r\nHost: agent\r\n",
		"idle after /health": "GET /health HTTP/1.1\r\nHost: agent\r\n\r\n",
	}
	for name, send := range sends {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			const conns = 50
			errs := make(chan error, conns)
			for range conns {
				go func() { errs <- closedByServer(addr, send, 15*time.Second) }()
			}
			for range conns {
				if err := <-errs; err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

// closedByServer sends send on a new connection and reads until the server closes it, or fails
// after limit.
func closedByServer(addr, send string, limit time.Duration) error {
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		return err
	}
	defer conn.Close()
	if _, err := io.WriteString(conn, send); err != nil {
		return err
	}
	_ = conn.SetReadDeadline(time.Now().Add(limit))
	_, err = io.Copy(io.Discard, bufio.NewReader(conn))
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return errors.New("the connection was still open after " + limit.String())
	}
	return nil // EOF or reset: closed by the server
}

// TestEveryAgentHasAToken: an agent given no token (the embedded one was such) made one up.
func TestEveryAgentHasAToken(t *testing.T) {
	t.Parallel()
	ta := newTestAgent(t, Options{})
	other := newTestAgent(t, Options{})
	if len(ta.Token()) < 40 || ta.Token() == other.Token() {
		t.Fatalf("tokens %q and %q: want two long random ones", ta.Token(), other.Token())
	}
	anon, _ := api.NewClient(ta.c.URL(), "", nil)
	ctx := context.Background()
	if _, err := anon.Submit(ctx, api.Job{Executable: "sh", Arguments: "-c id"}); statusCode(err) != http.StatusUnauthorized {
		t.Errorf("submit without the token: %v, want 401", err)
	}
	open := newTestAgent(t, Options{NoToken: true})
	if open.Token() != "" {
		t.Errorf("NoToken agent has token %q", open.Token())
	}
	if _, _, err := StartEmbedded(ctx, Options{Dir: t.TempDir()}); err == nil {
		t.Error("StartEmbedded without a token started")
	}
}

// TestJobAndEntryCaps: jobs and upload entries were unbounded.
func TestJobAndEntryCaps(t *testing.T) {
	t.Parallel()
	ta := newTestAgent(t, Options{MaxJobs: 2, MaxUploadEntries: 3})
	ctx := context.Background()
	src := &api.Source{LocalFolder: "."}
	var ids []string
	for range 2 {
		id, err := ta.c.Submit(ctx, api.Job{Executable: "sh", Source: src})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	_, err := ta.c.Submit(ctx, api.Job{Name: "third", Executable: "sh"})
	if statusCode(err) != http.StatusTooManyRequests || !strings.Contains(err.Error(), "holds 2 jobs") {
		t.Errorf("third job: %v, want 429 saying the agent holds 2 jobs", err)
	}
	four := testutil.TarGz(t, testutil.TarFile("a", "1", 0o644), testutil.TarFile("b", "2", 0o644), testutil.TarFile("c", "3", 0o644), testutil.TarFile("d", "4", 0o644))
	err = ta.c.Upload(ctx, ids[0], four)
	if statusCode(err) != http.StatusRequestEntityTooLarge || !strings.Contains(err.Error(), "more than 3 entries") {
		t.Errorf("upload of 4 entries, cap 3: %v, want 413 naming the cap", err)
	}
	if err := ta.c.Upload(ctx, ids[1], testutil.TarGz(t, testutil.TarFile("a", "1", 0o644))); err != nil {
		t.Errorf("upload of 1 entry: %v", err)
	}
	if err := ta.c.Delete(ctx, ids[0]); err != nil {
		t.Fatal(err)
	}
	if _, err := ta.c.Submit(ctx, api.Job{Executable: "sh"}); err != nil {
		t.Errorf("submit after a delete: %v", err)
	}
}

// TestClientFaultsAre4xxAndWarnings: a symlink chain was planted (200) and writes through it,
// a truncated gzip, answered 500 and logged ERROR.
func TestClientFaultsAre4xxAndWarnings(t *testing.T) {
	t.Parallel()
	var logs testutil.SyncBuffer
	ta := newTestAgent(t, Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	ctx := context.Background()
	whole := testutil.TarGz(t, testutil.TarFile("big", strings.Repeat("0123456789", 10000), 0o644)).Bytes()
	cases := map[string]io.Reader{
		"symlink chain": testutil.TarGz(t, testutil.TarSymlink("a", "."), testutil.TarSymlink("a/a/a/a/a/b", "../../../../..")),
		"write through": testutil.TarGz(t, testutil.TarSymlink("a", "."), testutil.TarFile("a/../../escape", "owned", 0o644)),
		"truncated":     strings.NewReader(string(whole[:len(whole)/2])),
	}
	for name, body := range cases {
		id, err := ta.c.Submit(ctx, api.Job{Executable: "sh", Source: &api.Source{LocalFolder: "."}})
		if err != nil {
			t.Fatal(err)
		}
		if err := ta.c.Upload(ctx, id, body); statusCode(err) != http.StatusBadRequest {
			t.Errorf("%s: %v, want 400", name, err)
		}
		if ents, _ := os.ReadDir(ta.Dir() + "/" + id); len(ents) != 0 {
			t.Errorf("%s: %d entries left in the job folder", name, len(ents))
		}
	}
	if strings.Contains(logs.String(), "level=ERROR") || !strings.Contains(logs.String(), "level=WARN") {
		t.Errorf("client faults should log warnings, not errors:\n%s", logs.String())
	}
}

// TestJobsDoNotInheritTheAgentsSecrets: jobs saw CRANK_AGENT_TOKEN.
func TestJobsDoNotInheritTheAgentsSecrets(t *testing.T) {
	t.Setenv("CRANK_AGENT_TOKEN", "agent-secret")
	t.Setenv("CRANK_INFLUX_TOKEN", "influx-secret")
	t.Setenv("CRANK_HARDENING_PLAIN", "kept")
	ta := newTestAgent(t, Options{})
	id := ta.submit(t, api.Job{Executable: "sh", WaitForExit: true,
		Arguments:   `-c 'echo "[$CRANK_AGENT_TOKEN][$CRANK_INFLUX_TOKEN][$CRANK_HARDENING_PLAIN][$MINE]"'`,
		Environment: map[string]string{"MINE": "given"}})
	ta.waitState(t, id, api.StateStopped)
	out := ta.waitOutput(t, id, "]")
	if !strings.Contains(out, "[][][kept][given]") {
		t.Errorf("job saw %q, want the secrets empty and the rest kept", out)
	}
}

// TestBuildCacheKeyIsTheAgents: a job with FLAVOR=b reused FLAVOR=a's build, and a client
// uploading other source under the same hash ran the first one's build.
func TestBuildCacheKeyIsTheAgents(t *testing.T) {
	t.Parallel()
	ta := newTestAgent(t, Options{})
	ctx := context.Background()
	run := func(app, flavor string) (api.JobStatus, string) {
		t.Helper()
		id, err := ta.c.Submit(ctx, api.Job{Executable: "./built", WaitForExit: true,
			Source:       &api.Source{LocalFolder: "app", Hash: "sha256:the-same-claim"},
			Environment:  map[string]string{"FLAVOR": flavor},
			BuildCommand: `{ echo '#!/bin/sh'; echo "echo ran $(cat app.txt) built-for-$FLAVOR"; } > built && chmod +x built`})
		if err != nil {
			t.Fatal(err)
		}
		if err := ta.c.Upload(ctx, id, testutil.TarGz(t, testutil.TarFile("app.txt", app, 0o644))); err != nil {
			t.Fatal(err)
		}
		if err := ta.c.Start(ctx, id); err != nil {
			t.Fatal(err)
		}
		st := ta.waitState(t, id, api.StateStopped, api.StateFailed)
		out := ta.waitOutput(t, id, "\nran ")
		_, said, _ := strings.Cut(out, "\nran ")
		return st, strings.TrimSpace(said)
	}
	for _, c := range []struct {
		app, flavor, want string
		reused            bool
	}{
		{"one", "a", "one built-for-a", false},
		{"one", "b", "one built-for-b", false}, // another environment
		{"two", "a", "two built-for-a", false}, // other content under the same claimed hash
		{"one", "a", "one built-for-a", true},  // the first again: reused
	} {
		st, said := run(c.app, c.flavor)
		if st.State != api.StateStopped || said != c.want || st.BuildReused != c.reused {
			t.Errorf("%s with FLAVOR=%s: %s, said %q, reused %v; want %q, reused %v", c.app, c.flavor, st.State, said, st.BuildReused, c.want, c.reused)
		}
	}
}

// TestOversizedJobIs413: a job whose environment value alone exceeds the submission cap is answered
// 413 naming the cap, not 400 "bad JSON" (the audit's 100 MB value; issue 41).
func TestOversizedJobIs413(t *testing.T) {
	t.Parallel()
	ta := newTestAgent(t, Options{})
	big := api.Job{Executable: "sh", Environment: map[string]string{"BIG": strings.Repeat("x", maxJobBody+1)}}
	_, err := ta.c.Submit(t.Context(), big)
	if statusCode(err) != http.StatusRequestEntityTooLarge || !strings.Contains(err.Error(), fmt.Sprintf("larger than %d bytes", maxJobBody)) {
		t.Errorf("a job over the cap: %v, want 413 naming the cap", err)
	}
	if _, err := ta.c.Submit(t.Context(), api.Job{Executable: "sh", Environment: map[string]string{"SMALL": "x"}}); err != nil {
		t.Errorf("a small job after it: %v", err)
	}
}
