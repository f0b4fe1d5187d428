//go:build linux

package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/testutil"
)

// nobody is the unprivileged user the agent runs as here (Debian's and GitHub's runners' nobody).
const nobody = 65534

// TestNonRootAgentInDelegatedCgroup: an agent that is not root, started in a cgroup delegated to
// its user (what systemd's Delegate=yes gives the shipped unit), makes its jobs' groups there and
// says so in /info; a job's `setsid` daemon, which leaves its process group, is killed with the job
// on DELETE (before, a non-root agent had no job groups and the daemon survived).
func TestNonRootAgentInDelegatedCgroup(t *testing.T) {
	if os.Getuid() != 0 {
		testutil.Missing(t, "root, to delegate a cgroup to another user")
	}
	root := ""
	for _, dir := range []string{"/sys/fs/cgroup", "/sys/fs/cgroup/unified"} {
		var st unix.Statfs_t
		if unix.Statfs(dir, &st) == nil && st.Type == unix.CGROUP2_SUPER_MAGIC {
			root = dir
			break
		}
	}
	if root == "" {
		testutil.Missing(t, "a cgroup v2 hierarchy")
	}
	deleg := filepath.Join(root, fmt.Sprintf("crank-e2e-delegated-%d", os.Getpid()))
	if err := os.Mkdir(deleg, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { removeTree(t, deleg) })
	for _, f := range []string{"", "cgroup.procs", "cgroup.subtree_control", "cgroup.threads"} {
		if err := os.Chown(filepath.Join(deleg, f), nobody, nobody); err != nil {
			t.Fatal(err)
		}
	}
	// The agent's files: a folder of nobody's own, the binary copied there (the test's are root's).
	home, err := os.MkdirTemp("", "crank-e2e-nobody-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(home) })
	bin, err := os.ReadFile(filepath.Join(testEnv.bins, "crank-agent"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, "crank-agent"), bin, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"jobs", "cache"} {
		if err := os.Mkdir(filepath.Join(home, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := filepath.Walk(home, func(p string, _ os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		return os.Chown(p, nobody, nobody)
	}); err != nil {
		t.Fatal(err)
	}
	group, err := os.Open(deleg)
	if err != nil {
		t.Fatal(err)
	}
	defer group.Close()
	url := "http://127.0.0.1:" + strconv.Itoa(freePorts(t, 1)[0])
	const token = "delegated-test-token-0123456789abcdef"
	cmd := exec.Command(filepath.Join(home, "crank-agent"), "--url", url, "--dir", filepath.Join(home, "jobs"), "--cache-dir", filepath.Join(home, "cache"))
	cmd.Env = append(withoutEnv(os.Environ(), "CRANK_AGENT_TOKEN", "HOME"), "CRANK_AGENT_TOKEN="+token, "HOME="+home)
	cmd.Dir = home
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody},
		UseCgroupFD: true, CgroupFD: int(group.Fd())}
	logs := filepath.Join(t.TempDir(), "agent.log")
	lf, err := os.Create(logs)
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = lf, lf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ap := &agentProc{url: url, dir: filepath.Join(home, "jobs"), logs: logs, cmd: cmd, done: make(chan struct{})}
	go func() { _ = cmd.Wait(); lf.Close(); close(ap.done) }()
	t.Cleanup(func() { ap.stop(t) })
	ap.waitHealthy(t, nil, 15*time.Second)
	c, err := api.NewClient(url, token, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	info, err := c.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if want := "cgroup v2 at " + filepath.Join(deleg, "jobs") + " (delegated to the agent's service)"; !strings.HasPrefix(info.Containment, want) {
		t.Fatalf("containment %q, want %q...\n%s", info.Containment, want, ap.log())
	}
	// The daemon's command line is "sleep 313.25"; the shell's holds "$d" instead, so only the
	// daemon matches.
	const daemon = "sleep 313.25"
	id, err := c.Submit(ctx, api.Job{Executable: "sh", Arguments: "-c 'd=313.25; setsid sleep $d & echo started; sleep 300'", ReadyStateText: "started"})
	if err == nil {
		err = c.Start(ctx, id)
	}
	if err != nil {
		t.Fatalf("submit: %v\n%s", err, ap.log())
	}
	testutil.Eventually(t, 15*time.Second, "the job's setsid daemon to start", func() bool { return len(processesWith(daemon)) > 0 })
	if err := c.Delete(ctx, id); err != nil {
		t.Fatal(err)
	}
	if left := processesWith(daemon); len(left) > 0 {
		t.Errorf("processes %v (the job's setsid daemon) outlived its deletion\n%s", left, ap.log())
	}
}

// removeTree kills what is left in a cgroup tree and removes its groups, deepest first.
func removeTree(t *testing.T, dir string) {
	var dirs []string
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			dirs = append(dirs, p)
		}
		return nil
	})
	for i := len(dirs) - 1; i >= 0; i-- {
		_ = os.WriteFile(filepath.Join(dirs[i], "cgroup.kill"), []byte("1"), 0)
		// the kernel empties a killed group asynchronously
		testutil.Within(5*time.Second, func() bool { return os.Remove(dirs[i]) == nil })
		if _, err := os.Stat(dirs[i]); err == nil {
			t.Errorf("cgroup %s not removed", dirs[i])
		}
	}
}
