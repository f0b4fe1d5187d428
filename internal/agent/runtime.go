package agent

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/crankshaft/crankshaft/internal/agent/buildcache"
	"github.com/crankshaft/crankshaft/internal/agent/cgroup"
	"github.com/crankshaft/crankshaft/internal/agent/docker"
	"github.com/crankshaft/crankshaft/internal/agent/process"
	"github.com/crankshaft/crankshaft/internal/agent/runtime"
)

// A job's programs run through one runtime.Runtime, the first of the agent's runtimes (a.runtimes:
// processes on this machine, agent/process; Docker containers, agent/docker) that accepts it.
// The state machine (run.go) sees only that contract: the runtime builds or gets what the job
// runs (Prepare), runs it (Start), fills its part of /info (Describe) and removes what a killed
// agent's jobs left (Cleanup).

// cleanupTimeout bounds the runtimes' Cleanup as an agent starts.
const cleanupTimeout = 30 * time.Second

// newRuntimes are the runtimes an agent with these options runs jobs with.
func newRuntimes(opts Options) runtime.Set {
	var toolDirs []string // looked in for bare executable names before PATH
	if exe, err := os.Executable(); err == nil {
		toolDirs = []string{filepath.Dir(exe)}
	}
	return runtime.Set{
		process.New(process.Options{Groups: cgroup.Open(), ToolDirs: toolDirs, Dir: opts.Dir,
			Cache: buildcache.Cache{Dir: opts.CacheDir}, CacheMaxBytes: opts.CacheMaxBytes,
			CacheMaxAge: opts.CacheMaxAge, Logger: opts.Logger}),
		docker.New(docker.Options{Dir: opts.Dir, Host: opts.DockerHost, EngineTimeout: opts.EngineTimeout,
			AllowPrivileged: opts.AllowPrivilegedDocker, ImageCacheMaxBytes: opts.ImageCacheMaxBytes,
			CacheMaxAge: opts.CacheMaxAge, Logger: opts.Logger}),
	}
}

// program names what the job runs, for messages: its executable or its image.
func (j *job) program() string { return j.rt.Program(j.spec) }

// prepareRun gets the job's sources (clones its repositories, puts its build files over them),
// then its runtime makes it ready to run: a process job built (or its build reused) and its
// executable resolved, a Docker job's image reused, built, loaded or pulled.
func (a *Agent) prepareRun(ctx context.Context, j *job) error {
	identity, err := a.fetch(ctx, j)
	if err != nil {
		return err
	}
	j.rj.Identity, j.rj.Env = identity, j.env()
	if j.parser != nil {
		j.rj.Files = j.parser.Files()
	}
	if err := j.rt.Prepare(ctx, j.rj); err != nil {
		return err
	}
	j.recordPublished()
	return nil
}

// start runs the job's program once with these arguments; its standard output goes to stdout and
// its standard error to the job's output.
func (a *Agent) start(ctx context.Context, j *job, args string, stdout io.Writer) (runtime.Handle, error) {
	return j.rt.Start(ctx, j.rj, runtime.Run{Args: args, Env: j.env(), Stdout: stdout})
}
