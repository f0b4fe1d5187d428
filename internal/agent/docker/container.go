package docker

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"sort"
	"sync"
	"time"

	"github.com/moby/moby/api/pkg/stdcopy"
	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/client"

	"github.com/crankshaft/crankshaft/internal/agent/cgroup"
	"github.com/crankshaft/crankshaft/internal/agent/proc"
	"github.com/crankshaft/crankshaft/internal/agent/runtime"
	"github.com/crankshaft/crankshaft/internal/agent/sample"
)

// defaultEngineTimeout bounds each engine call made to clean up, whatever the job's context says.
const defaultEngineTimeout = 30 * time.Second

// Start creates and starts the job's container, as crank's agent does: on the host's network,
// with the job's environment variables, its arguments' docker run options, dockerCommand as the
// command, and cpuSet, memoryLimitInBytes and cpuLimitRatio as the container's limits; unlike
// crank's, with only the capabilities a server needs, no new privileges and no io_uring (confine).
func (r *Runtime) Start(ctx context.Context, j *runtime.Job, run runtime.Run) (runtime.Handle, error) {
	cli, err := r.engine(ctx)
	if err != nil {
		return nil, fmt.Errorf("job %s: %w", j.ID, err)
	}
	ra, err := parseRunArgs(j.Spec.Arguments)
	if err != nil {
		return nil, fmt.Errorf("job %s: %w", j.ID, err)
	}
	cmd, err := proc.Split(j.Spec.Source.DockerCommand)
	if err != nil {
		return nil, fmt.Errorf("job %s: dockerCommand: %w", j.ID, err)
	}
	env := make([]string, 0, len(j.Spec.Environment)+len(ra.env))
	for k, v := range j.Spec.Environment {
		env = append(env, k+"="+v)
	}
	sort.Strings(env)
	env = append(env, ra.env...)
	network := ra.network
	if network == "" {
		network = "host"
	}
	hc := &container.HostConfig{NetworkMode: container.NetworkMode(network), ExtraHosts: ra.extraHosts,
		Privileged: ra.privileged, IpcMode: container.IpcMode(ra.ipc)}
	if err := confine(hc, ra); err != nil {
		return nil, fmt.Errorf("job %s: %w", j.ID, err)
	}
	hc.CpusetCpus = j.Spec.CpuSet
	hc.Memory = int64(j.Spec.MemoryLimitInBytes)
	if j.Spec.CPULimitRatio > 0 {
		hc.CPUPeriod, hc.CPUQuota = 100000, int64(j.Spec.CPULimitRatio*100000)
	}
	cfg := &container.Config{Image: j.Program, Env: env, Cmd: cmd,
		Labels: map[string]string{labelJob: j.ID, labelDir: r.opts.Dir}}
	name := containerName(ImageName(j.Spec.Source), j.ID)
	// Not cut short by a stop: a container the engine made must be known, to be removed.
	timeout := r.engineTimeout()
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), timeout)
	defer cancel()
	created, err := cli.ContainerCreate(ctx, client.ContainerCreateOptions{Config: cfg, HostConfig: hc, Name: name})
	if err != nil {
		return nil, fmt.Errorf("job %s: docker create %s: %w", j.ID, j.Program, err)
	}
	for _, w := range created.Warnings {
		j.Warn("docker: " + w)
	}
	// The container's output and exit are followed until it exits or its handle gives up on an
	// engine that stopped answering (stop's bound), whichever comes first.
	follow, unfollow := context.WithCancel(context.Background())
	h := &containerHandle{cli: cli, id: created.ID, name: name, done: make(chan struct{}), timeout: timeout, log: j.Log,
		warn: j.Warn, unfollow: unfollow}
	j.Out.WriteString("$ docker start " + name + "\n")
	if _, err := cli.ContainerStart(ctx, created.ID, client.ContainerStartOptions{}); err != nil {
		unfollow()
		h.remove()
		return nil, fmt.Errorf("job %s: docker start %s: %w", j.ID, name, err)
	}
	logs, err := cli.ContainerLogs(follow, created.ID, client.ContainerLogsOptions{ShowStdout: true, ShowStderr: true, Follow: true})
	if err != nil {
		unfollow()
		h.remove()
		return nil, fmt.Errorf("job %s: docker logs %s: %w", j.ID, name, err)
	}
	go h.run(follow, j, logs, run.Stdout)
	return h, nil
}

// containerHandle is a started container; it is removed once it has exited.
type containerHandle struct {
	cli  *client.Client
	id   string
	name string
	done chan struct{}
	exit proc.Exit
	// timeout bounds each engine call made to stop or clean up (Options.EngineTimeout).
	timeout time.Duration
	log     *slog.Logger
	warn    func(string) // a warning the job reports
	// unfollow ends the following of the container's output and exit (run's context).
	unfollow context.CancelFunc

	mu      sync.Mutex
	sampler *sample.CgroupSampler
	// gaveUp is the exit Stop returned when the engine did not answer: later stops return it at
	// once instead of waiting again.
	gaveUp *proc.Exit
}

// run copies the container's output until it exits, records the exit, and removes it.
func (h *containerHandle) run(follow context.Context, j *runtime.Job, logs io.ReadCloser, stdout io.Writer) {
	copied := make(chan struct{})
	go func() {
		_, _ = stdcopy.StdCopy(stdout, j.Out, logs)
		close(copied)
	}()
	w := h.cli.ContainerWait(follow, h.id, client.ContainerWaitOptions{Condition: container.WaitConditionNotRunning})
	h.exit = proc.Exit{Code: -1}
	select {
	case res := <-w.Result:
		h.exit.Code = int(res.StatusCode)
	case err := <-w.Error:
		h.exit.Signal = "docker wait: " + err.Error()
	}
	h.exit.Time = time.Now()
	select {
	case <-copied:
	case <-time.After(outputDrain):
	}
	logs.Close()
	h.unfollow()
	h.remove()
	close(h.done)
}

// outputDrain bounds how long a container's output is still read after it exited.
const outputDrain = 2 * time.Second

// remove removes the container and its anonymous volumes.
func (h *containerHandle) remove() {
	ctx, cancel := context.WithTimeout(context.Background(), h.timeout)
	defer cancel()
	if _, err := h.cli.ContainerRemove(ctx, h.id, client.ContainerRemoveOptions{Force: true, RemoveVolumes: true}); err != nil {
		h.log.Warn("container not removed", "container", h.name, "err", err)
		return
	}
	h.log.Info("container removed", "container", h.name)
}

func (h *containerHandle) Wait() <-chan struct{} { return h.done }

func (h *containerHandle) Exit() proc.Exit {
	<-h.done
	return h.exit
}

// Stop is docker stop: SIGTERM, SIGKILL after grace; the container is then removed.
func (h *containerHandle) Stop(grace time.Duration) proc.Exit {
	select {
	case <-h.done:
		return h.exit
	default:
	}
	h.mu.Lock()
	gaveUp := h.gaveUp
	h.mu.Unlock()
	if gaveUp != nil {
		return *gaveUp
	}
	secs := max(int(grace.Seconds()), 1)
	bound := grace + h.timeout
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	defer cancel()
	if _, err := h.cli.ContainerStop(ctx, h.id, client.ContainerStopOptions{Timeout: &secs}); err != nil {
		h.log.Warn("docker stop failed", "container", h.name, "err", err)
	}
	select {
	case <-h.done:
		return h.exit
	case <-ctx.Done():
	}
	// The engine did not report the container's end within grace and the engine's bound: stop
	// following it (the removal is still tried, in the background, bounded) and say that it may
	// be left running, rather than hang the job's deletion and the agent's shutdown.
	h.unfollow()
	why := fmt.Sprintf("docker stop: the engine did not answer within %s; container %s may be left running", bound, h.name)
	h.log.Error("the Docker engine did not answer", "container", h.name, "waited", bound)
	h.warn(why)
	e := proc.Exit{Code: -1, Time: time.Now(), Signal: why}
	h.mu.Lock()
	h.gaveUp = &e
	h.mu.Unlock()
	return e
}

// Interrupt sends the container's process SIGINT and waits up to grace for it to exit, then stops
// it as Stop does.
func (h *containerHandle) Interrupt(grace time.Duration) proc.Exit {
	ctx, cancel := context.WithTimeout(context.Background(), h.timeout)
	_, err := h.cli.ContainerKill(ctx, h.id, client.ContainerKillOptions{Signal: "SIGINT"})
	cancel()
	if err == nil {
		t := time.NewTimer(grace)
		defer t.Stop()
		select {
		case <-h.done:
			return h.exit
		case <-t.C:
		}
	}
	return h.Stop(grace)
}

// Stats samples the container's control group (found from its first process).
func (h *containerHandle) Stats() (sample.Stats, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.sampler == nil {
		ctx, cancel := context.WithTimeout(context.Background(), h.timeout)
		defer cancel()
		in, err := h.cli.ContainerInspect(ctx, h.id, client.ContainerInspectOptions{})
		if err != nil {
			return sample.Stats{}, err
		}
		if in.Container.State == nil || in.Container.State.Pid == 0 {
			return sample.Stats{}, fmt.Errorf("container %s is not running", h.name)
		}
		dir, err := cgroup.OfPid(in.Container.State.Pid)
		if err != nil {
			return sample.Stats{}, err
		}
		if h.sampler, err = sample.NewCgroup(dir); err != nil {
			return sample.Stats{}, err
		}
	}
	return h.sampler.Sample()
}

func (h *containerHandle) String() string { return "container " + h.name + " (" + h.id[:12] + ")" }

// Pids are the processes of the container's control group (found from its first process).
func (h *containerHandle) Pids() ([]int, error) {
	ctx, cancel := context.WithTimeout(context.Background(), h.timeout)
	defer cancel()
	in, err := h.cli.ContainerInspect(ctx, h.id, client.ContainerInspectOptions{})
	if err != nil {
		return nil, err
	}
	if in.Container.State == nil || in.Container.State.Pid == 0 {
		return nil, fmt.Errorf("container %s is not running", h.name)
	}
	dir, err := cgroup.OfPid(in.Container.State.Pid)
	if err != nil {
		return []int{in.Container.State.Pid}, nil
	}
	if ps := cgroup.Procs(dir); len(ps) > 0 {
		return ps, nil
	}
	return []int{in.Container.State.Pid}, nil
}
