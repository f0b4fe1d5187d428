// Package proc runs the agent's processes. Each process starts in its own process group, so
// stopping it ends every process it spawned: Start returns a handle, Wait is a channel closed when
// the process has exited, and Stop(timeout) sends SIGTERM to the whole group, then SIGKILL once
// the timeout has passed.
//
// When the group leader exits by itself, whatever is left of its group is killed before the exit
// is reported, so no process outlives the job it belongs to.
package proc

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"reflect"
	"runtime"
	"sync"
	"syscall"
	"time"
)

// Spec says what to run.
type Spec struct {
	// Path is the resolved executable; Args are its arguments without argv[0].
	Path string
	Args []string
	Dir  string
	// Env is the complete environment (nil: the agent's own).
	Env []string
	// Stdout and Stderr receive the process's output; nil discards it. They may be the same
	// writer, which then must be safe for concurrent use.
	Stdout, Stderr io.Writer
	// Credential, when set, is the user and groups the process runs as (the agent must be root).
	// The parent-death signal is set after the switch, so it still applies.
	Credential *syscall.Credential
	// CPUs, when set, is the CPU affinity the process starts with (Linux): it and every process it
	// starts may run only on these CPUs, and runtimes that size themselves by the CPUs they may use
	// (Go's GOMAXPROCS, .NET's Environment.ProcessorCount) see only these.
	CPUs []int
	// Group, when set, is the control group the process starts in: the whole group is killed
	// with the process group, so nothing it spawned outlives it, however it detached.
	Group Group
}

// Group is a control group (cgroup.Group) seen from here.
type Group interface {
	// FD is the group's folder descriptor: the process is started inside it.
	FD() int
	// Enter puts the calling thread into the group's other hierarchies (v1 limits) until leave,
	// so that the process forked meanwhile starts in them; the thread is locked around both.
	Enter() (leave func(), err error)
	// Kill sends SIGKILL to every process in the group.
	Kill()
}

// Exit is how a process ended.
type Exit struct {
	// Code is the exit status, or -1 when the process was ended by a signal.
	Code int
	// Signal names the signal that ended the process, if one did.
	Signal string
	Time   time.Time
}

// Success reports whether the process exited with status 0.
func (e Exit) Success() bool { return e.Code == 0 && e.Signal == "" }

func (e Exit) String() string {
	if e.Signal != "" {
		return "killed by " + e.Signal
	}
	return fmt.Sprintf("exit code %d", e.Code)
}

// Process is a running process group.
type Process struct {
	cmd     *exec.Cmd
	done    chan struct{}
	exit    Exit
	copies  sync.WaitGroup
	readers []*os.File
	group   Group
}

// outputDrain bounds how long output is still read after the group is gone (a process that left
// the group may keep the pipe open).
const outputDrain = 2 * time.Second

// Start starts the process in a new process group.
func Start(s Spec) (*Process, error) {
	cmd := exec.Command(s.Path, s.Args...)
	cmd.Dir, cmd.Env = s.Dir, s.Env
	cmd.SysProcAttr = sysProcAttr(s.Group)
	cmd.SysProcAttr.Credential = s.Credential
	p := &Process{cmd: cmd, done: make(chan struct{}), group: s.Group}
	var writeEnds []*os.File
	closeAll := func() {
		for _, f := range append(writeEnds, p.readers...) {
			f.Close()
		}
	}
	outs := []io.Writer{s.Stdout, s.Stderr}
	if sameWriter(s.Stdout, s.Stderr) {
		outs = outs[:1] // one pipe for both keeps their order
	}
	for i, dst := range outs {
		if dst == nil {
			continue
		}
		r, w, err := os.Pipe()
		if err != nil {
			closeAll()
			return nil, fmt.Errorf("start %s: output pipe: %w", s.Path, err)
		}
		p.readers, writeEnds = append(p.readers, r), append(writeEnds, w)
		if i == 0 {
			cmd.Stdout = w
			if len(outs) == 1 {
				cmd.Stderr = w
			}
		} else {
			cmd.Stderr = w
		}
		p.copies.Add(1)
		go func() {
			defer p.copies.Done()
			_, _ = io.Copy(dst, r)
		}()
	}
	if err := startIn(cmd, s.Group, s.CPUs); err != nil {
		closeAll()
		p.copies.Wait()
		return nil, fmt.Errorf("start %s: %w", s.Path, err)
	}
	for _, w := range writeEnds {
		w.Close() // the child holds its own copies
	}
	go p.wait()
	return p, nil
}

// startIn starts cmd from a thread that is in g's other hierarchies for the fork, with the CPU
// affinity cpus (startOn).
func startIn(cmd *exec.Cmd, g Group, cpus []int) error {
	if g == nil {
		return startOn(cmd, cpus)
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	leave, err := g.Enter()
	if err != nil {
		return err
	}
	defer leave()
	return startOn(cmd, cpus)
}

// Pid is the process's id, which is also its process group's id.
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// Wait returns a channel closed once the process has exited, the rest of its group has been
// killed and its output has been read.
func (p *Process) Wait() <-chan struct{} { return p.done }

// Exit is how the process ended; valid once Wait's channel is closed.
func (p *Process) Exit() Exit {
	<-p.done
	return p.exit
}

// Stop sends SIGTERM to the process group, SIGKILL after timeout if the leader still runs, and
// waits for the exit.
func (p *Process) Stop(timeout time.Duration) Exit { return p.stopWith(sigTerm, timeout) }

// Interrupt is Ctrl-C: SIGINT to the process group, so that a load tool stops and prints what it
// counted (wrk, bombardier, ghz and crank load do); SIGKILL after timeout if the leader still runs.
func (p *Process) Interrupt(timeout time.Duration) Exit { return p.stopWith(sigInt, timeout) }

func (p *Process) stopWith(sig signal, timeout time.Duration) Exit {
	select {
	case <-p.done:
		return p.exit
	default:
	}
	signalGroup(p.Pid(), sig)
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case <-p.done:
	case <-t.C:
		p.killAll()
		<-p.done
	}
	return p.exit
}

// killAll sends SIGKILL to the process group and to the control group.
func (p *Process) killAll() {
	signalGroup(p.Pid(), sigKill)
	if p.group != nil {
		p.group.Kill()
	}
}

func (p *Process) wait() {
	err := waitAndKill(p.cmd, p.killAll)
	p.exit = exitOf(p.cmd.ProcessState, err)
	drained := make(chan struct{})
	go func() {
		p.copies.Wait()
		close(drained)
	}()
	select {
	case <-drained:
	case <-time.After(outputDrain):
		for _, r := range p.readers {
			r.Close()
		}
		<-drained
	}
	for _, r := range p.readers {
		r.Close()
	}
	close(p.done)
}

// sameWriter reports whether a and b are the same (comparable) writer.
func sameWriter(a, b io.Writer) bool {
	if a == nil || b == nil || !reflect.TypeOf(a).Comparable() || !reflect.TypeOf(b).Comparable() {
		return false
	}
	return a == b
}

func exitOf(ps *os.ProcessState, err error) Exit {
	e := Exit{Time: time.Now(), Code: -1}
	if ps == nil {
		e.Signal = fmt.Sprintf("wait error: %v", err)
		return e
	}
	e.Code = ps.ExitCode()
	if e.Code == -1 {
		e.Signal = signalName(ps)
	}
	return e
}
