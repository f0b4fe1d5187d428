// Package apptest builds and starts the benchmark apps in tests and checks them against the
// TechEmpower verification rules.
package apptest

import (
	"bufio"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/app/runner"
)

// Build compiles the package pkg (an import path) into a temporary folder and returns the binary.
func Build(t testing.TB, pkg string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), filepath.Base(pkg))
	out, err := exec.Command("go", "build", "-o", bin, pkg).CombinedOutput()
	if err != nil {
		t.Fatalf("go build %s: %v\n%s", pkg, err, out)
	}
	return bin
}

// FreePort returns a loopback TCP port that was free a moment ago.
func FreePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("free port: %v", err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// Process is a running app.
type Process struct {
	Addr        string // host:port of the app
	MetricsAddr string // host:port of /metrics
	cmd         *exec.Cmd
	exited      chan struct{} // closed once the process has exited and exitErr is set
	exitErr     error
	stopped     bool
}

// Start runs bin on loopback with free --port and --metrics-port plus args, waits for the ready
// text, and on cleanup sends SIGTERM and checks the app exits 0.
func Start(t testing.TB, bin string, args ...string) *Process {
	t.Helper()
	return StartEnv(t, nil, bin, args...)
}

// Pid is the app's process id.
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// StartEnv is Start with extra environment variables ("NAME=value").
func StartEnv(t testing.TB, env []string, bin string, args ...string) *Process {
	t.Helper()
	port, mport := FreePort(t), FreePort(t)
	for mport == port { // each was free alone; they must also differ
		mport = FreePort(t)
	}
	p := &Process{
		Addr:        net.JoinHostPort("127.0.0.1", strconv.Itoa(port)),
		MetricsAddr: net.JoinHostPort("127.0.0.1", strconv.Itoa(mport)),
		exited:      make(chan struct{}),
	}
	all := append([]string{"--address", "127.0.0.1", "--port", strconv.Itoa(port),
		"--metrics-port", strconv.Itoa(mport)}, args...)
	p.cmd = exec.Command(bin, all...)
	p.cmd.Env = append(os.Environ(), env...)
	p.cmd.Stderr = testWriter{t}
	stdout, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatalf("stdout pipe: %v", err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", bin, err)
	}
	ready := make(chan struct{})
	go p.scan(stdout, ready)
	t.Cleanup(func() { p.Stop(t) })
	select {
	case <-ready:
	case <-p.exited:
		t.Fatalf("%s exited before ready: %v", bin, p.exitErr)
	case <-time.After(15 * time.Second):
		t.Fatalf("%s not ready after 15s", bin)
	}
	return p
}

func (p *Process) scan(stdout io.Reader, ready chan struct{}) {
	sc := bufio.NewScanner(stdout)
	seen := false
	for sc.Scan() {
		if !seen && strings.Contains(sc.Text(), runner.ReadyText) {
			seen = true
			close(ready)
		}
	}
	p.exitErr = p.cmd.Wait()
	close(p.exited)
}

// Stop sends SIGTERM and fails the test unless the app exits 0 within 10 s. It is idempotent.
func (p *Process) Stop(t testing.TB) {
	t.Helper()
	if p.stopped {
		return
	}
	p.stopped = true
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.exited:
		if p.exitErr != nil {
			t.Errorf("app exit after SIGTERM: %v", p.exitErr)
		}
	case <-time.After(10 * time.Second):
		_ = p.cmd.Process.Kill()
		t.Errorf("app did not exit within 10s of SIGTERM")
		<-p.exited
	}
}

// testWriter sends the app's stderr to the test log.
type testWriter struct{ t testing.TB }

func (w testWriter) Write(b []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(b), "\n"))
	return len(b), nil
}
