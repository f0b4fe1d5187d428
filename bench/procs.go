package main

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// proc is a process the bench started, in a process group of its own.
type proc struct {
	cmd  *exec.Cmd
	done chan struct{} // closed once the process has been waited for
	// exitCPU is the process's CPU read from /proc/<pid>/stat after it exited and before it was
	// reaped; exitErr says why it could not be read. Both are set before done is closed.
	exitCPU cpuTicks
	exitErr error
	waitErr error
}

// Pid is the process id (and process group id).
func (p *proc) Pid() int { return p.cmd.Process.Pid }

// procs tracks every process the bench started, so that all of them end with it.
type procs struct {
	log  *slog.Logger
	mu   sync.Mutex
	live map[*proc]bool
}

func newProcs(log *slog.Logger) *procs { return &procs{log: log, live: map[*proc]bool{}} }

// start runs argv in a new process group with output to out (nil: discarded). The process is
// killed if the bench's thread that started it dies without cleaning up (Pdeathsig).
func (ps *procs) start(argv []string, env []string, out io.Writer) (*proc, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", strings.Join(argv, " "), err)
	}
	p := &proc{cmd: cmd, done: make(chan struct{})}
	ps.mu.Lock()
	ps.live[p] = true
	ps.mu.Unlock()
	go ps.reap(p)
	return p, nil
}

// reap waits for p to exit, reads its CPU while it is a zombie (so the figure is the kernel's
// final count for every thread), then reaps it.
func (ps *procs) reap(p *proc) {
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, p.Pid(), &info, unix.WEXITED|unix.WNOWAIT, nil)
		if !errors.Is(err, unix.EINTR) {
			if err != nil {
				p.exitErr = fmt.Errorf("waitid %d: %w", p.Pid(), err)
			}
			break
		}
	}
	if p.exitErr == nil {
		s, err := readStat(p.Pid())
		p.exitCPU, p.exitErr = s.CPU(), err
	}
	p.waitErr = p.cmd.Wait()
	ps.mu.Lock()
	delete(ps.live, p)
	ps.mu.Unlock()
	close(p.done)
}

// stop ends p's process group: SIGTERM, then SIGKILL after grace. It returns once p is reaped.
func (ps *procs) stop(p *proc, grace time.Duration) {
	select {
	case <-p.done:
		return
	default:
	}
	_ = syscall.Kill(-p.Pid(), syscall.SIGTERM)
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-p.done:
	case <-t.C:
		ps.log.Warn("process did not stop on SIGTERM; killing its group", "pid", p.Pid(), "cmd", p.cmd.Path)
		_ = syscall.Kill(-p.Pid(), syscall.SIGKILL)
		<-p.done
	}
}

// stopAll stops every process still running.
func (ps *procs) stopAll() {
	ps.mu.Lock()
	var list []*proc
	for p := range ps.live {
		list = append(list, p)
	}
	ps.mu.Unlock()
	var wg sync.WaitGroup
	for _, p := range list {
		wg.Go(func() { ps.stop(p, 3*time.Second) })
	}
	wg.Wait()
}
