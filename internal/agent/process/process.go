// Package process is the job runtime that runs a job as processes on this machine: each run a
// process group and, when the agent can make one, a control group of its own (agent/cgroup). It
// builds a job's source with its build command, keeping builds in the build cache (build.go), and
// cleans up what a killed agent's jobs left (cleanup.go).
package process

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/crankshaft/crankshaft/internal/agent/buildcache"
	"github.com/crankshaft/crankshaft/internal/agent/cgroup"
	"github.com/crankshaft/crankshaft/internal/agent/proc"
	"github.com/crankshaft/crankshaft/internal/agent/runtime"
	"github.com/crankshaft/crankshaft/internal/agent/sample"
	"github.com/crankshaft/crankshaft/internal/api"
)

// Options configure the process runtime.
type Options struct {
	// Groups makes the jobs' control groups (cgroup.Open()).
	Groups *cgroup.Manager
	// ToolDirs are looked in for a bare executable name before PATH.
	ToolDirs []string
	// Dir is the agent's job root: a job's folder is Dir/ID, and the folders beside it Dir/ID.*.
	// Cleanup kills what still runs in those an earlier agent left ("": none).
	Dir string
	// Cache keeps builds by what made them; its bounds: CacheMaxBytes and CacheMaxAge (negative,
	// zero: no bound). Cache.Dir "": builds are not kept.
	Cache         buildcache.Cache
	CacheMaxBytes int64
	CacheMaxAge   time.Duration
	Logger        *slog.Logger
}

// Runtime runs jobs as process groups, in control groups made by groups when it can.
type Runtime struct {
	opts     Options
	groups   *cgroup.Manager
	toolDirs []string
	log      *slog.Logger
	// noSpares: the jobs' folders are on another file system than the build cache, so its spare
	// copies cannot be renamed into them (reuse.go).
	noSpares atomic.Bool
}

// New is a process runtime.
func New(opts Options) *Runtime {
	r := &Runtime{opts: opts, groups: opts.Groups, toolDirs: opts.ToolDirs, log: cmp.Or(opts.Logger, slog.Default())}
	if r.groups == nil {
		r.groups = cgroup.Open()
	}
	r.log.Info("job containment", "cgroups", r.groups.Describe())
	return r
}

var _ runtime.Runtime = (*Runtime)(nil)

// Accepts a job that runs no container (api.Job.InContainer).
func (r *Runtime) Accepts(spec api.Job) bool { return !spec.InContainer() }

// Program is the job's executable as it names it.
func (r *Runtime) Program(spec api.Job) string { return spec.Executable }

// Check refuses a job with no executable.
func (r *Runtime) Check(spec api.Job) []string {
	if strings.TrimSpace(spec.Executable) == "" {
		return []string{"executable is required"}
	}
	return nil
}

// Prepare builds the job's source (or reuses its build), gives its folder to the job's user,
// writes the files its programs expect there, and resolves the executable: in the job folder, the
// tool folders, then PATH.
func (r *Runtime) Prepare(ctx context.Context, j *runtime.Job) error {
	if err := r.build(ctx, j); err != nil {
		return err
	}
	if err := own(j, j.Dir); err != nil { // also what a reused build restored
		return fmt.Errorf("job %s: %w", j.ID, err)
	}
	if err := writeFiles(j); err != nil {
		return err
	}
	exe, err := proc.LookPath(j.Spec.Executable, j.Dir, r.toolDirs...)
	if err != nil {
		return fmt.Errorf("job %s: %w", j.ID, err)
	}
	j.Program = exe
	return nil
}

// Start starts the executable with run's arguments in the job folder, as the job's user, with
// the job's cpuSet as CPU affinity and its limits on its control group.
func (r *Runtime) Start(_ context.Context, j *runtime.Job, run runtime.Run) (runtime.Handle, error) {
	argv, err := proc.Split(run.Args)
	if err != nil {
		return nil, fmt.Errorf("job %s: %w", j.ID, err)
	}
	cpus, _ := api.ParseCPUSet(j.Spec.CpuSet) // checked when the job was accepted
	spec := proc.Spec{Path: j.Program, Args: argv, Dir: j.Dir, Env: run.Env, Stdout: run.Stdout, Stderr: j.Out,
		Credential: j.Credential, CPUs: cpus}
	h := &handle{done: make(chan struct{})}
	if r.groups.Available() {
		// cpuSet is not a cgroup limit for process jobs: it is applied as CPU affinity.
		lim := cgroup.Limits{MemoryBytes: j.Spec.MemoryLimitInBytes, CPURatio: j.Spec.CPULimitRatio}
		g, warns, err := r.groups.New(j.ID+"-"+suffix(), lim)
		if err != nil {
			j.Warn(fmt.Sprintf("no control group for this run (%v): its daemons are only killed with its process group", err))
		} else {
			spec.Group, h.group = g, g
			for _, w := range warns {
				j.Warn(w)
			}
		}
	} else if j.Spec.MemoryLimitInBytes > 0 || j.Spec.CPULimitRatio > 0 {
		j.Warn("memoryLimitInBytes and cpuLimitRatio not applied: " + r.groups.Describe())
	}
	p, err := proc.Start(spec)
	if err != nil && h.group != nil {
		_ = h.group.Close()
		if errors.Is(err, syscall.ENOSYS) { // clone3 into a cgroup unsupported (qemu-user)
			r.groups.Disable("starting a process in a cgroup is not supported here (clone3: ENOSYS)")
			j.Warn("no control group: " + r.groups.Describe())
			spec.Group, h.group = nil, nil
			p, err = proc.Start(spec)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("job %s: %w", j.ID, err)
	}
	h.p = p
	go h.wait(j)
	return h, nil
}

// suffix tells a job's runs' control groups apart.
func suffix() string {
	b := make([]byte, 2)
	_, _ = rand.Read(b) // crypto/rand.Read does not fail
	return hex.EncodeToString(b)
}

// handle is a process group, and its control group when it has one.
type handle struct {
	p     *proc.Process
	group *cgroup.Group
	done  chan struct{}

	once    sync.Once
	sampler interface{ Sample() (sample.Stats, error) }
	err     error
}

func (h *handle) wait(j *runtime.Job) {
	<-h.p.Wait()
	if h.group != nil {
		if err := h.group.Close(); err != nil {
			j.Log.Warn("control group not removed", "err", err)
		}
	}
	close(h.done)
}

func (h *handle) Wait() <-chan struct{} { return h.done }

func (h *handle) Exit() proc.Exit {
	<-h.done
	return h.p.Exit()
}

func (h *handle) Stop(grace time.Duration) proc.Exit {
	h.p.Stop(grace)
	<-h.done
	return h.p.Exit()
}

func (h *handle) Interrupt(grace time.Duration) proc.Exit {
	h.p.Interrupt(grace)
	<-h.done
	return h.p.Exit()
}

// Stats samples the control group (every process that ran in it counts, however it detached),
// or the process tree when there is no control group.
func (h *handle) Stats() (sample.Stats, error) {
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

func (h *handle) String() string { return fmt.Sprintf("process %d", h.p.Pid()) }

// Pids are the control group's processes, or the process group's leader without one.
func (h *handle) Pids() ([]int, error) {
	if h.group != nil {
		if ps := cgroup.Procs(h.group.Path()); len(ps) > 0 {
			return ps, nil
		}
	}
	return []int{h.p.Pid()}, nil
}
