// Package runtime is the contract between the agent's job state machine and the runtimes that run
// a job's programs: processes on this machine (agent/process) and Docker containers
// (agent/docker). The state machine sees only Runtime, Handle and Job; runtimetest is the
// conformance suite every runtime passes.
package runtime

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"syscall"
	"time"

	"github.com/crankshaft/crankshaft/internal/agent/output"
	"github.com/crankshaft/crankshaft/internal/agent/proc"
	"github.com/crankshaft/crankshaft/internal/agent/sample"
	"github.com/crankshaft/crankshaft/internal/api"
)

// Runtime runs a job's programs.
type Runtime interface {
	// Accepts says whether this runtime takes the job (the agent asks its runtimes in turn: Set).
	Accepts(spec api.Job) bool
	// Check refuses, at submission, a job this runtime cannot run here: each problem a sentence.
	Check(spec api.Job) []string
	// Prepare makes a job ready to run once its source is in place: it builds it (or reuses its
	// build, or its image) and sets j.Program. A step cut short by ctx fails with ErrStopping.
	Prepare(ctx context.Context, j *Job) error
	// Start runs the job's program once (the measured run, or a warm-up run).
	Start(ctx context.Context, j *Job, run Run) (Handle, error)
	// Program names what a job of this runtime runs, for messages: its executable, its image.
	Program(spec api.Job) string
	// Describe fills this runtime's part of the agent's /info (what contains the jobs, the
	// engine, the tools it cannot find), or says why it has none; it returns by ctx's end.
	Describe(ctx context.Context, info *api.Info)
	// Cleanup removes what this runtime left behind when its agent, on the same folder, was killed
	// (processes, control groups, containers) and applies its caches' bounds. The agent calls it
	// once as it starts; it returns by ctx's end.
	Cleanup(ctx context.Context) error
}

// Handle is one running program of a job.
type Handle interface {
	// Wait is closed once the program and everything it started have ended and been cleaned up.
	Wait() <-chan struct{}
	// Exit is how the program ended; valid once Wait is closed.
	Exit() proc.Exit
	// Stop asks the program to end, forces it after grace, and returns once it is cleaned up. A
	// runtime whose engine stopped answering returns once its bound beyond grace has passed, with
	// why in the exit's Signal, having warned the job that its program "may be left running".
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

// Job is what a runtime sees of a job: the agent's job holds one.
type Job struct {
	ID   string
	Spec api.Job
	// Dir is the job's folder, holding its source.
	Dir string
	// Identity is the identity of the job's sources for the caches (an upload's digest as the agent
	// extracted it, a repository and its commit; "" for none). The agent sets it before Prepare.
	Identity string
	Log      *slog.Logger
	// Out is the job's output: its programs' standard error, and what the runtime says it does.
	Out *output.Buffer
	// Warn records something the job asked for and does not get; the controller prints it.
	Warn func(msg string)
	// SetBuild records the build's (or the image's) time, 0 and reused when it came from a cache.
	SetBuild func(ms float64, reused bool)
	// Credential is the user a process job runs as (nil: the agent's own); User names it in a
	// build's cache key (its uid; "" the agent's own); Own gives it a folder and everything in it
	// (nil, or the agent's own user: nothing to do).
	Credential *syscall.Credential
	User       string
	Own        func(dir string) error
	// Env is the job's environment when it is prepared: a process job's build runs in it.
	Env []string
	// Toolchain names what builds the job beyond its build command (the .NET SDK chosen): part of
	// the build cache's key.
	Toolchain string
	// Files are the files the job's programs expect in its folder (a parser's helper scripts, by
	// slash-separated relative name): a runtime whose programs see that folder writes them there.
	Files map[string][]byte
	// Program is what Prepare made ready: a process job's executable, a Docker job's image.
	Program string
	// Manifest is the manifest of the job's source as the agent extracted it, when its own upload
	// is its only source (nil otherwise): a runtime that keeps builds records it beside them, so a
	// later job that proves it has that content need not upload it (SourceReuser).
	Manifest api.SourceManifest
	// Restored is the build-cache key whose build Dir holds: restored by a SourceReuser in place of
	// the upload (Prepare restores nothing again), or by Prepare, or saved from it.
	Restored string
}

// SourceReuser is a Runtime that can fill a job's empty folder from its build cache instead of an
// upload of its source, when the controller proves it has the content (api.SourceReuse).
type SourceReuser interface {
	// ReuseSource restores into j.Dir the cached build of the source whose extraction gives
	// digest, when the cache holds it with that source's manifest and proof is the manifest's
	// Proof for j.ID; it sets j.Restored. Otherwise it says why not, leaving j.Dir empty. An error
	// is a restore that failed after writing into j.Dir.
	ReuseSource(ctx context.Context, j *Job, digest, proof string) (reused bool, why string, err error)
	// Replenish readies the cache for the next job of the build j's folder held (Restored), once
	// j's folder is removed; it returns by ctx's end.
	Replenish(ctx context.Context, j *Job)
}

// Run is one start of a job's program.
type Run struct {
	// Args are the program's arguments as one string, quoted as in a shell (a Docker job's are
	// its docker run options, already in Spec).
	Args string
	// Env is a process's whole environment (a container gets the job's variables from Spec).
	Env []string
	// Stdout receives the program's standard output; its standard error goes to Job.Out.
	Stdout io.Writer
}

// ErrStopping says a step was cut short because the job is being stopped.
var ErrStopping = errors.New("job is stopping")

// TailLines is how many lines of output an error quotes.
const TailLines = 20

// StopGrace is how long a program has to exit after SIGTERM before it is killed.
const StopGrace = 5 * time.Second

// Profiled is a Handle whose processes a profiler can record (perf: crank's collect).
type Profiled interface {
	// Pids are the program's processes now: its control group's, else its first process (a
	// profiler that follows children follows the rest).
	Pids() ([]int, error)
}
