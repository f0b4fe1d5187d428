package e2e

import (
	"bufio"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestAgentEnvironmentUnreadableByItsJobs: a job runs as the agent's own user, which could read the
// agent's token from /proc/$PPID/environ (issue 25, 4); the agent makes itself non-dumpable, so a
// process of the same user cannot.
func TestAgentEnvironmentUnreadableByItsJobs(t *testing.T) {
	dir, agentBin := nobodyCopy(t, "crank-agent")
	port := strconv.Itoa(freePort(t))
	cmd := exec.Command(agentBin, "--url", "http://127.0.0.1:"+port, "--dir", filepath.Join(dir, "agent"),
		"--cache-dir", filepath.Join(dir, "cache"))
	cmd.Env = []string{"CRANK_AGENT_TOKEN=secret-token-for-the-test", "PATH=/usr/bin:/bin", "HOME=" + dir}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
	errPipe, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	listening := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(errPipe)
		for sc.Scan() {
			if strings.Contains(sc.Text(), "agent listening") {
				listening <- true
			}
		}
		listening <- false
	}()
	select {
	case ok := <-listening:
		if !ok {
			t.Fatal("the agent ended before listening")
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the agent did not start")
	}
	// Its environment, and (third audit) its working folder, open files and memory map, which
	// would name the token file and the job folders.
	proc := "/proc/" + strconv.Itoa(cmd.Process.Pid)
	for _, reader := range [][]string{{"cat", proc + "/environ"}, {"ls", proc + "/cwd/"}, {"ls", "-l", proc + "/fd"}, {"cat", proc + "/maps"}} {
		read := exec.Command(reader[0], reader[1:]...)
		read.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
		out, err := read.CombinedOutput()
		if err == nil || strings.Contains(string(out), "secret-token-for-the-test") {
			t.Errorf("a process of the agent's user ran %q (%v): %q", reader, err, out)
		}
	}
}
