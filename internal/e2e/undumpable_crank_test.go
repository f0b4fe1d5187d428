package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// nobodyCopy skips the test unless it runs as root (root reads any process), and copies the built
// binary name into a fresh folder nobody owns, where that user may run it; it returns both.
func nobodyCopy(t *testing.T, name string) (dir, bin string) {
	t.Helper()
	if os.Getuid() != 0 {
		t.Skip("needs root to run " + name + " and its reader as another user")
	}
	dir = t.TempDir()
	if err := os.Chown(dir, nobody, nobody); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(testEnv.bins, name))
	if err != nil {
		t.Fatal(err)
	}
	bin = filepath.Join(dir, name)
	if err := os.WriteFile(bin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Dir(dir), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir, bin
}

// TestCrankEnvironmentUnreadableByItsJobs: the embedded agent's jobs run as crank's own user and
// could read CRANK_AGENT_TOKEN and CRANK_INFLUX_TOKEN from /proc/<crank>/environ (issue 41,
// MEDIUM 9); crank makes itself non-dumpable as crank-agent does, so its job cannot.
func TestCrankEnvironmentUnreadableByItsJobs(t *testing.T) {
	dir, crankBin := nobodyCopy(t, "crank")
	// The job reads its parent's (crank's) environment into a file the test reads afterwards.
	out := filepath.Join(dir, "read.txt")
	script := writeFile(t, dir, "read.sh", "cat /proc/$PPID/environ > "+out+" 2>&1; echo \" exit $?\" >> "+out+"\n")
	cfg := writeFile(t, dir, "read.yml", `
jobs:
  reader:
    executable: /bin/sh
    arguments: `+script+`
    waitForExit: true
scenarios:
  read:
    application:
      job: reader
`)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, crankBin, "--config", cfg, "--scenario", "read")
	cmd.Dir = dir
	cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + dir, "TMPDIR=" + dir,
		"CRANK_AGENT_TOKEN=agent-secret-for-the-test", "CRANK_INFLUX_TOKEN=influx-secret-for-the-test"}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("crank: %v\n%s", err, b)
	}
	read, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("the job did not run: %v", err)
	}
	got := string(read)
	if strings.Contains(got, "secret-for-the-test") || !strings.Contains(got, "Permission denied") || strings.HasSuffix(got, " exit 0\n") {
		t.Errorf("the embedded agent's job read crank's environment: %q", got)
	}
}
