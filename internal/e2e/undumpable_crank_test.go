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

// TestCrankEnvironmentUnreadableByItsJobs: the embedded agent's jobs run as crank's own user and
// could read CRANK_AGENT_TOKEN and CRANK_INFLUX_TOKEN from /proc/<crank>/environ (issue 41,
// MEDIUM 9); crank makes itself non-dumpable as crank-agent does, so its job cannot.
func TestCrankEnvironmentUnreadableByItsJobs(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to run crank and its job as another user (root reads any process)")
	}
	const nobody = 65534
	dir := t.TempDir()
	if err := os.Chmod(filepath.Dir(dir), 0o755); err != nil {
		t.Fatal(err)
	}
	bin, err := os.ReadFile(filepath.Join(testEnv.bins, "crank"))
	if err != nil {
		t.Fatal(err)
	}
	crankBin := writeFile(t, dir, "crank", string(bin))
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
	for _, p := range []string{dir, crankBin} {
		if err := os.Chown(p, nobody, nobody); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(crankBin, 0o755); err != nil {
		t.Fatal(err)
	}
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
