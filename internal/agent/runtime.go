package agent

import (
	"context"
	"io"
	"time"

	"github.com/crankshaft/crankshaft/internal/agent/proc"
	"github.com/crankshaft/crankshaft/internal/agent/sample"
	"github.com/crankshaft/crankshaft/internal/api"
)

// jobRuntime runs a job's programs: as processes on this machine (processRuntime) or as Docker
// containers (dockerRuntime). The state machine (run.go) sees only this interface and handle.
type jobRuntime interface {
	// check refuses, at submission, a job this runtime cannot run here.
	check(spec api.Job) []string
	// prepare makes a started job ready to run once its source is in place: a build, an image.
	prepare(ctx context.Context, j *job) error
	// start runs the job's program with these arguments (the measured run, or a warm-up run);
	// its standard output goes to stdout and its standard error to the job's output.
	start(ctx context.Context, j *job, args string, stdout io.Writer) (handle, error)
}

// handle is one running program of a job.
type handle interface {
	// Wait is closed once the program and everything it started have ended and been cleaned up.
	Wait() <-chan struct{}
	// Exit is how the program ended; valid once Wait is closed.
	Exit() proc.Exit
	// Stop asks the program to end, forces it after grace, and returns once it is cleaned up.
	Stop(grace time.Duration) proc.Exit
	// Interrupt is Stop with Ctrl-C's signal (SIGINT), on which a load tool stops early and still
	// prints what it counted.
	Interrupt(grace time.Duration) proc.Exit
	// Stats samples the program's CPU and memory since the previous call (the first call only
	// starts the counting and may return an error until it can).
	Stats() (sample.Stats, error)
	// String names the program for logs ("process 1234", "container 0abc...").
	String() string
}

// isDocker reports whether a job runs in a container: it names a Dockerfile, an image or an
// image to pull or load (crank's rule).
func isDocker(spec api.Job) bool {
	s := spec.Source
	return s != nil && (s.DockerFile != "" || s.DockerImageName != "" || s.DockerPull != "" || s.DockerLoad != "")
}

// runtimeFor is the runtime of a job.
func (a *Agent) runtimeFor(spec api.Job) jobRuntime {
	if isDocker(spec) {
		return a.docker
	}
	return a.process
}

// program names what the job runs, for messages: its executable or its image.
func (j *job) program() string {
	if isDocker(j.spec) {
		return "container " + imageName(j.spec.Source)
	}
	return j.spec.Executable
}
