// Package testutil holds small helpers that tests in several packages share.
package testutil

import (
	"bytes"
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

// GitRepo makes a git repository in a temporary folder with one commit per script, each
// committing the script as the executable app.sh, and returns the folder and the commits in
// order. The test is skipped when git is not installed.
func GitRepo(t testing.TB, scripts ...string) (dir string, commits []string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		Missing(t, "git is not installed")
	}
	dir = t.TempDir()
	git := func(args ...string) string {
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

// FreePorts returns n distinct loopback TCP ports that were free a moment ago (held open together,
// so one call cannot return the same port twice).
func FreePorts(t testing.TB, n int) []int {
	t.Helper()
	var ports []int
	for range n {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		ports = append(ports, ln.Addr().(*net.TCPAddr).Port)
	}
	return ports
}
