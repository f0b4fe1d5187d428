// Package testutil holds small helpers that tests in several packages share.
package testutil

import (
	"bytes"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// SyncBuffer is a bytes.Buffer that goroutines may write while a test reads it.
type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Git runs git in dir with a fixed author and no global configuration, failing the test when it
// fails, and returns its output trimmed.
func Git(t testing.TB, dir string) func(args ...string) string {
	return func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
			"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com", "GIT_CONFIG_GLOBAL=/dev/null")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
}

// GitRepo makes a git repository in a temporary folder with one commit per script, each
// committing the script as the executable app.sh, and returns the folder and the commits in
// order. The test is skipped when git is not installed.
func GitRepo(t testing.TB, scripts ...string) (dir string, commits []string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		Missing(t, "git is not installed")
	}
	dir = t.TempDir()
	git := Git(t, dir)
	git("init", "--quiet", "-b", "main")
	for i, script := range scripts {
		if err := os.WriteFile(filepath.Join(dir, "app.sh"), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
		git("add", "app.sh")
		git("commit", "--quiet", "-m", "app.sh, version "+strconv.Itoa(i+1))
		commits = append(commits, git("rev-parse", "HEAD"))
	}
	return dir, commits
}

// FreePorts returns n loopback TCP ports that were free a moment ago. They are drawn below the
// kernel's ephemeral range (net.ipv4.ip_local_port_range, 32768-60999 by default), where a
// listener on port 0 (an embedded agent, a test server) and every outgoing connection's own
// port come from: a port picked there and released could be handed to one of those before the
// test's app binds it.
func FreePorts(t testing.TB, n int) []int {
	t.Helper()
	lo, hi := 10000, ephemeralLow()-1
	var ports []int
	var held []net.Listener
	defer func() {
		for _, ln := range held {
			ln.Close()
		}
	}()
	for tries := 0; len(ports) < n; tries++ {
		if tries == 2000 {
			t.Fatalf("no %d free ports in %d-%d", n, lo, hi)
		}
		ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(lo+rand.IntN(hi-lo))))
		if err != nil {
			continue // taken
		}
		held = append(held, ln)
		ports = append(ports, ln.Addr().(*net.TCPAddr).Port)
	}
	return ports
}

// FreeRun returns the first of n consecutive loopback TCP ports that were all free a moment ago
// (crank bisect --side-by-side moves each commit's copy to serverPort plus 0, 1, 2).
func FreeRun(t testing.TB, n int) int {
	t.Helper()
	lo, hi := 10000, ephemeralLow()-n
	for tries := 0; tries < 2000; tries++ {
		base := lo + rand.IntN(hi-lo)
		var held []net.Listener
		for p := base; p < base+n; p++ {
			ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p)))
			if err != nil {
				break
			}
			held = append(held, ln)
		}
		for _, ln := range held {
			ln.Close()
		}
		if len(held) == n {
			return base
		}
	}
	t.Fatalf("no %d consecutive free ports in %d-%d", n, lo, hi+n-1)
	return 0
}

// ephemeralLow is the lowest port of the kernel's ephemeral range (32768 when it cannot be read).
func ephemeralLow() int {
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return 32768
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 32768
	}
	if v, err := strconv.Atoi(f[0]); err == nil && v > 11000 {
		return v
	}
	return 32768
}
