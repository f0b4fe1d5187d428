package agent

import (
	"context"
	"fmt"
	"io"

	"github.com/crankshaft/crankshaft/internal/agent/docker"
	"github.com/crankshaft/crankshaft/internal/agent/runtime"
	"github.com/crankshaft/crankshaft/internal/api"
)

// A job's programs run through one runtime.Runtime: processes on this machine (agent/process) or
// Docker containers (agent/docker). The state machine (run.go) sees only that contract.

// isDocker reports whether a job runs in a container: it names a Dockerfile, an image or an
// image to pull or load (crank's rule).
func isDocker(spec api.Job) bool { return spec.InContainer() }

// runtimeFor is the runtime of a job.
func (a *Agent) runtimeFor(spec api.Job) runtime.Runtime {
	if isDocker(spec) {
		return a.docker
	}
	return a.process
}

// program names what the job runs, for messages: its executable or its image.
func (j *job) program() string {
	if isDocker(j.spec) {
		return "container " + docker.ImageName(j.spec.Source)
	}
	return j.spec.Executable
}

// prepareRun gets the job's source and, for a process job, builds it (or reuses the build), gives
// its folder to the job's user and writes the parser's files there; then the job's runtime makes
// it ready to run (the executable resolved; the image reused, built, loaded or pulled).
func (a *Agent) prepareRun(ctx context.Context, j *job) error {
	identity, err := a.prepare(ctx, j)
	if err != nil {
		return err
	}
	if !isDocker(j.spec) { // a container sees none of the job folder but its image
		j.recordPublished()
		if err := j.user.own(j.dir); err != nil { // also what a reused build restored
			return fmt.Errorf("job %s: %w", j.id, err)
		}
		if err := j.writeParserFiles(); err != nil {
			return err
		}
	}
	j.rj.Identity = identity
	return j.rt.Prepare(ctx, j.rj)
}

// start runs the job's program once with these arguments; its standard output goes to stdout and
// its standard error to the job's output.
func (a *Agent) start(ctx context.Context, j *job, args string, stdout io.Writer) (runtime.Handle, error) {
	return j.rt.Start(ctx, j.rj, runtime.Run{Args: args, Env: j.env(), Stdout: stdout})
}
