// Package influxtest starts a real InfluxDB OSS 1.8 (influxd) for tests: on free loopback ports,
// with its data in a temporary folder, reporting disabled, stopped when the test ends. Tests
// are skipped with a clear message when influxd is not installed (`make test-deps` builds it
// into .cache/bin).
package influxtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/testutil"
)

// DB is the database Start creates.
const DB = "crank"

// StartTimeout bounds how long influxd may take to answer /ping.
const StartTimeout = 30 * time.Second

// Server is a running influxd.
type Server struct {
	// URL is its HTTP API ("http://127.0.0.1:PORT").
	URL string
	// DB is the database created at start.
	DB string

	bin, dir, config string
	t                testing.TB
	mu               sync.Mutex
	cmd              *exec.Cmd
	exited           chan struct{}
	output           *syncBuffer
}

// Binary finds influxd: on PATH, then in .cache/bin of the module root.
func Binary() (string, error) {
	if p, err := exec.LookPath("influxd"); err == nil {
		return p, nil
	}
	root, err := moduleRoot()
	if err != nil {
		return "", err
	}
	p := filepath.Join(root, ".cache", "bin", "influxd")
	if fi, err := os.Stat(p); err == nil && fi.Mode()&0o111 != 0 {
		return p, nil
	}
	return "", fmt.Errorf("influxd not on PATH nor in %s (run `make test-deps`)", filepath.Dir(p))
}

func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory")
		}
		dir = parent
	}
}

// Start runs influxd for the test and creates DB. Without influxd the test is skipped, or fails
// under CI=true (testutil.Missing): `make test-deps` builds it.
func Start(t testing.TB) *Server {
	t.Helper()
	bin, err := Binary()
	if err != nil {
		testutil.Missing(t, "influxtest: %v", err)
	}
	s := &Server{DB: DB, bin: bin, dir: t.TempDir(), t: t}
	t.Cleanup(s.Stop)
	var lastErr error
	for range 3 { // a free port can be taken between choosing it and influxd binding it
		if lastErr = s.configure(); lastErr != nil {
			break
		}
		if lastErr = s.start(); lastErr == nil {
			break
		}
	}
	if lastErr != nil {
		t.Fatalf("influxtest: %v", lastErr)
	}
	if err := s.Exec(context.Background(), "CREATE DATABASE "+s.DB); err != nil {
		t.Fatalf("influxtest: %v", err)
	}
	return s
}

// configure picks free ports and writes the config file.
func (s *Server) configure() error {
	httpPort, err := freePort()
	if err != nil {
		return err
	}
	rpcPort, err := freePort()
	if err != nil {
		return err
	}
	s.URL = fmt.Sprintf("http://127.0.0.1:%d", httpPort)
	s.config = filepath.Join(s.dir, "influxdb.conf")
	return os.WriteFile(s.config, []byte(Config(s.dir, "127.0.0.1", httpPort, rpcPort)), 0o644)
}

// Config is an influxd configuration keeping its files in dir and answering HTTP on
// host:httpPort (RPC on host:rpcPort), for a test that runs influxd itself (in a network
// namespace of its own, say).
func Config(dir, host string, httpPort, rpcPort int) string {
	return fmt.Sprintf(configTemplate, host, rpcPort, dir, dir, dir, host, httpPort)
}

const configTemplate = `reporting-disabled = true
bind-address = "%s:%d"
[meta]
  dir = "%s/meta"
  logging-enabled = false
[data]
  dir = "%s/data"
  wal-dir = "%s/wal"
  query-log-enabled = false
  index-version = "inmem"
[retention]
  enabled = false
[shard-precreation]
  enabled = false
[monitor]
  store-enabled = false
[http]
  enabled = true
  bind-address = "%s:%d"
  log-enabled = false
  flux-enabled = false
[logging]
  level = "warn"
[subscriber]
  enabled = false
[continuous_queries]
  enabled = false
`

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// start runs influxd with the current config and waits until /ping answers.
func (s *Server) start() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	cmd := exec.Command(s.bin, "run", "-config", s.config)
	s.output = &syncBuffer{}
	cmd.Stdout, cmd.Stderr = s.output, s.output
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start %s: %w", s.bin, err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	s.cmd, s.exited = cmd, exited
	if err := waitPing(s.URL, exited, StartTimeout); err != nil {
		s.stopLocked()
		return fmt.Errorf("influxd: %w; output:\n%s", err, s.output.String())
	}
	return nil
}

func waitPing(base string, exited <-chan struct{}, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	client := &http.Client{Timeout: time.Second}
	for {
		resp, err := client.Get(base + "/ping")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusNoContent {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("no answer on %s/ping after %s (last: %v)", base, timeout, err)
		}
		select {
		case <-exited:
			return errors.New("exited before answering /ping")
		case <-tick.C:
		}
	}
}

// Stop ends influxd (SIGTERM, then SIGKILL after 10 s). Its data stays until the test ends.
func (s *Server) Stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stopLocked()
}

func (s *Server) stopLocked() {
	if s.cmd == nil {
		return
	}
	syscall.Kill(-s.cmd.Process.Pid, syscall.SIGTERM)
	select {
	case <-s.exited:
	case <-time.After(10 * time.Second):
		syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
		<-s.exited
	}
	s.cmd = nil
}

// Restart starts a stopped influxd again on the same port with the same data.
func (s *Server) Restart() {
	s.t.Helper()
	if err := s.start(); err != nil {
		s.t.Fatalf("influxtest: restart: %v", err)
	}
}

// Exec runs an InfluxQL statement that returns no data (CREATE DATABASE, DROP ...).
func (s *Server) Exec(ctx context.Context, q string) error {
	form := url.Values{"q": {q}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.URL+"/query", strings.NewReader(form.Encode()))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("%s: %w", q, err)
	}
	defer resp.Body.Close()
	var body bytes.Buffer
	body.ReadFrom(resp.Body)
	if resp.StatusCode != http.StatusOK || strings.Contains(body.String(), `"error"`) {
		return fmt.Errorf("%s: status %d: %s", q, resp.StatusCode, body.String())
	}
	return nil
}

// Output is what influxd printed since it last started.
func (s *Server) Output() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.output.String()
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.b.Len() > 1<<20 {
		return len(p), nil // keep the first MiB: enough to say why it failed
	}
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}
