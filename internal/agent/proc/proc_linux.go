package proc

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"syscall"

	"github.com/crankshaft/crankshaft/internal/api"
	"golang.org/x/sys/unix"
)

type signal = unix.Signal

const (
	sigInt  = unix.SIGINT
	sigTerm = unix.SIGTERM
	sigKill = unix.SIGKILL
)

// sysProcAttr puts the process in its own group and has the kernel kill it when the agent dies.
// Pdeathsig follows the OS thread that started the child; the Go runtime keeps its threads for
// the life of the process, so in practice that is the agent's life. Grandchildren are not covered
// by Pdeathsig: Stop, Delete, lease expiry and Shutdown kill the whole group.
// With a control group, the process starts inside it (clone3's CLONE_INTO_CGROUP).
func sysProcAttr(g Group) *syscall.SysProcAttr {
	a := &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if g != nil {
		a.UseCgroupFD, a.CgroupFD = true, g.FD()
	}
	return a
}

// signalGroup signals every process in group pgid; a group already gone is not an error.
func signalGroup(pgid int, sig unix.Signal) {
	_ = unix.Kill(-pgid, sig)
}

// waitAndKill waits for the leader to exit, kills the rest of its group (kill), then reaps it. The
// leader stays unreaped (WNOWAIT) while its group is killed, so that its id, which is also the
// group's id, cannot be reused in between.
func waitAndKill(cmd *exec.Cmd, kill func()) error {
	pid := cmd.Process.Pid
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if !errors.Is(err, unix.EINTR) {
			break
		}
	}
	kill()
	return cmd.Wait()
}

func signalName(ps *os.ProcessState) string {
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return unix.SignalName(ws.Signal())
	}
	return "signal"
}

// Alive reports whether a process with this pid exists (signal 0 does not fail with ESRCH).
// A zombie counts as alive.
func Alive(pid int) bool {
	return !errors.Is(unix.Kill(pid, 0), unix.ESRCH)
}

// startOn starts cmd with the CPU affinity cpus (all of the agent's when empty). The fork happens
// on this goroutine's OS thread, so the thread is locked and given the affinity for the moment of
// the start, which the child inherits before it runs any code of its own; the thread gets its
// affinity back before it is unlocked.
func startOn(cmd *exec.Cmd, cpus []int) error {
	if len(cpus) == 0 {
		return cmd.Start()
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var old, set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &old); err != nil {
		return fmt.Errorf("reading the CPU affinity: %w", err)
	}
	for _, c := range cpus {
		set.Set(c)
	}
	if err := unix.SchedSetaffinity(0, &set); err != nil {
		return fmt.Errorf("cpuSet %v: %w", cpus, err)
	}
	err := cmd.Start()
	if rerr := unix.SchedSetaffinity(0, &old); rerr != nil && err == nil {
		err = fmt.Errorf("restoring the agent thread's CPU affinity: %w", rerr)
	}
	return err
}

// AllowedCPUs lists the CPUs this process may run on (what a cpuSet may name).
func AllowedCPUs() ([]int, error) {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		return nil, err
	}
	var out []int
	for c := range api.MaxCPU {
		if set.IsSet(c) {
			out = append(out, c)
		}
	}
	return out, nil
}
