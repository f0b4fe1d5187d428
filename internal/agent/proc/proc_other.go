//go:build !linux

package proc

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
)

type signal = syscall.Signal

const (
	sigInt  = syscall.SIGINT
	sigTerm = syscall.SIGTERM
	sigKill = syscall.SIGKILL
)

// sysProcAttr puts the process in its own group (no parent-death signal outside Linux).
// No control group outside Linux.
func sysProcAttr(Group) *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

func signalGroup(pgid int, sig syscall.Signal) { _ = syscall.Kill(-pgid, sig) }

// waitAndKill reaps the leader, then kills what is left of its group (kill).
func waitAndKill(cmd *exec.Cmd, kill func()) error {
	err := cmd.Wait()
	kill()
	return err
}

func signalName(ps *os.ProcessState) string {
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return ws.Signal().String()
	}
	return "signal"
}

// Alive reports whether a process with this pid exists.
func Alive(pid int) bool { return !errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) }

// startOn starts cmd; a CPU affinity needs Linux.
func startOn(cmd *exec.Cmd, cpus []int) error {
	if len(cpus) > 0 {
		return errors.New("cpuSet needs a Linux agent")
	}
	return cmd.Start()
}

// AllowedCPUs is not known outside Linux.
func AllowedCPUs() ([]int, error) { return nil, errors.New("cpuSet needs a Linux agent") }
