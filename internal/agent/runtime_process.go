package agent

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/crankshaft/crankshaft/internal/agent/cgroup"
	"github.com/crankshaft/crankshaft/internal/agent/proc"
	"github.com/crankshaft/crankshaft/internal/agent/sample"
	"github.com/crankshaft/crankshaft/internal/api"
)

// processRuntime runs a job as processes on this machine, each run in a process group and, when
// the agent can make one, a control group of its own.
type processRuntime struct {
	a      *Agent
	groups *cgroup.Manager
}

func (r *processRuntime) check(spec api.Job) []string {
	if strings.TrimSpace(spec.Executable) == "" {
		return []string{"executable is required"}
	}
	return nil
}

// prepare gets the source, builds it (or reuses a build), gives the folder to the job's user and
// resolves the executable.
func (r *processRuntime) prepare(ctx context.Context, j *job) error {
	if err := r.a.prepare(ctx, j); err != nil {
		return err
	}
	j.recordPublished()
	if err := j.user.own(j.dir); err != nil { // also what a reused build restored
		return fmt.Errorf("job %s: %w", j.id, err)
	}
	if err := j.writeParserFiles(); err != nil {
		return err
	}
	exe, err := proc.LookPath(j.spec.Executable, j.dir, r.a.toolDirs...)
	if err != nil {
		return fmt.Errorf("job %s: %w", j.id, err)
	}
	j.exe = exe
	return nil
}

func (r *processRuntime) start(_ context.Context, j *job, args string, stdout io.Writer) (handle, error) {
	argv, err := proc.Split(args)
	if err != nil {
		return nil, fmt.Errorf("job %s: %w", j.id, err)
	}
	spec := proc.Spec{Path: j.exe, Args: argv, Dir: j.dir, Env: j.env(), Stdout: stdout, Stderr: j.out,
		Credential: j.user.credential(), CPUs: j.cpus()}
	h := &processHandle{done: make(chan struct{})}
	if r.groups.Available() {
		// cpuSet is not a cgroup limit for process jobs: it is applied as CPU affinity.
		lim := cgroup.Limits{MemoryBytes: j.spec.MemoryLimitInBytes, CPURatio: j.spec.CPULimitRatio}
		g, warns, err := r.groups.New(j.id+"-"+newID()[:4], lim)
		if err != nil {
			j.warn(fmt.Sprintf("no control group for this run (%v): its daemons are only killed with its process group", err))
		} else {
			spec.Group, h.group = g, g
			for _, w := range warns {
				j.warn(w)
			}
		}
	} else if j.spec.MemoryLimitInBytes > 0 || j.spec.CPULimitRatio > 0 {
		j.warn("memoryLimitInBytes and cpuLimitRatio not applied: " + r.groups.Describe())
	}
	p, err := proc.Start(spec)
	if err != nil && h.group != nil {
		_ = h.group.Close()
		if errors.Is(err, syscall.ENOSYS) { // clone3 into a cgroup unsupported (qemu-user)
			r.groups.Disable("starting a process in a cgroup is not supported here (clone3: ENOSYS)")
			j.warn("no control group: " + r.groups.Describe())
			spec.Group, h.group = nil, nil
			p, err = proc.Start(spec)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("job %s: %w", j.id, err)
	}
	h.p = p
	go h.wait(j)
	return h, nil
}

// processHandle is a process group, and its control group when it has one.
type processHandle struct {
	p     *proc.Process
	group *cgroup.Group
	done  chan struct{}

	once    sync.Once
	sampler interface{ Sample() (sample.Stats, error) }
	err     error
}

func (h *processHandle) wait(j *job) {
	<-h.p.Wait()
	if h.group != nil {
		if err := h.group.Close(); err != nil {
			j.log.Warn("control group not removed", "err", err)
		}
	}
	close(h.done)
}

func (h *processHandle) Wait() <-chan struct{} { return h.done }

func (h *processHandle) Exit() proc.Exit {
	<-h.done
	return h.p.Exit()
}

func (h *processHandle) Stop(grace time.Duration) proc.Exit {
	h.p.Stop(grace)
	<-h.done
	return h.p.Exit()
}

func (h *processHandle) Interrupt(grace time.Duration) proc.Exit {
	h.p.Interrupt(grace)
	<-h.done
	return h.p.Exit()
}

// Stats samples the control group (every process that ran in it counts, however it detached),
// or the process tree when there is no control group.
func (h *processHandle) Stats() (sample.Stats, error) {
	h.once.Do(func() {
		if h.group != nil {
			h.sampler, h.err = sample.NewCgroup(h.group.Path())
		} else {
			h.sampler, h.err = sample.New(h.p.Pid())
		}
	})
	if h.err != nil {
		return sample.Stats{}, h.err
	}
	return h.sampler.Sample()
}

func (h *processHandle) String() string { return fmt.Sprintf("process %d", h.p.Pid()) }
