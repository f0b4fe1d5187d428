// Package runtimetest is the conformance suite of the job runtime contract (agent/runtime): every
// runtime runs Run, which drives it through accepting its job, the build and its reuse, start,
// readiness, exit, stop with grace, interrupt, sampling, its part of /info, the cleanup of what a
// killed agent left and, for a runtime with an engine, an engine that stops answering.
package runtimetest

import (
	"context"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/agent/output"
	"github.com/crankshaft/crankshaft/internal/agent/runtime"
	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/testutil"
)

// Program is the file name of the suite's program (testprog) in a job's folder.
const Program = "testprog"

// Subject is a runtime under the suite, and how a job of it runs the suite's program.
type Subject struct {
	Runtime runtime.Runtime
	// Spec is the job that runs dir/Program with args (quoted as in a shell); it may add files to
	// dir (a Dockerfile).
	Spec func(t *testing.T, dir, args string) api.Job
	// Identity is the jobs' source identity (runtime.Job.Identity): with one, the second job
	// prepared reuses the first one's build (or image).
	Identity string
	// Dir is the agent's job root the runtime was made with: every Subject of a Factory has the
	// same, and the suite makes its jobs' folders in it (Dir/ID), as the agent does.
	Dir string
	// Hang, when set, makes the runtime's engine stop answering, for good; Bound is then how long
	// beyond its grace a Stop may take.
	Hang  func()
	Bound time.Duration
}

// Factory makes a fresh Subject for one case of the suite.
type Factory func(t *testing.T) Subject

// grace is the stop grace the suite gives (a container's is whole seconds).
const grace = time.Second

// Run runs the suite on the runtime newSubject makes, one subtest a case.
func Run(t *testing.T, newSubject Factory) {
	prog := build(t)
	cases := []struct {
		name string
		run  func(t *testing.T, s Subject, r *running)
		args func(port string) string
	}{
		{"ReadyThenStopHonoured", readyThenStop, func(p string) string { return "serve " + p }},
		{"WaitExitCode", waitExit, func(string) string { return "exit 7" }},
		{"StopForcedAfterGrace", stopForced, func(string) string { return "stubborn" }},
		{"Interrupt", interrupt, func(p string) string { return "serve " + p }},
		{"Stats", stats, func(string) string { return "busy" }},
		{"Pids", pids, func(p string) string { return "serve " + p }},
		{"StopWhenTheEngineHangs", engineHangs, func(p string) string { return "serve " + p }},
	}
	contract := []struct {
		name string
		run  func(t *testing.T, newSubject Factory, prog string)
	}{
		{"BuildReused", buildReused},
		{"Describe", describe},
		{"DescribeWhenTheEngineHangs", describeHung},
		{"CleanupAfterAKilledAgent", cleanupLeftovers},
		{"CleanupWhenTheEngineHangs", cleanupHung},
	}
	for _, c := range contract {
		t.Run(c.name, func(t *testing.T) { c.run(t, newSubject, prog) })
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := newSubject(t)
			if c.name == "StopWhenTheEngineHangs" && s.Hang == nil {
				t.Log("this runtime has no engine that could hang")
				return
			}
			c.run(t, s, start(t, s, prog, c.args(freePort(t))))
		})
	}
}

// running is one started program of a case.
type running struct {
	h        runtime.Handle
	job      *runtime.Job
	stdout   *output.Buffer
	port     string
	mu       sync.Mutex
	warnings []string
	builds   []buildCall // what the runtime recorded through SetBuild
}

// buildCall is one SetBuild call.
type buildCall struct {
	ms     float64
	reused bool
}

func (r *running) built() []buildCall {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]buildCall(nil), r.builds...)
}

func (r *running) warned() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.warnings...)
}

// build compiles the suite's program, static.
func build(t *testing.T) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), Program)
	cmd := exec.Command("go", "build", "-trimpath", "-o", out, "github.com/crankshaft/crankshaft/internal/agent/runtime/runtimetest/testprog")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building the suite's program: %v\n%s", err, b)
	}
	return out
}

// start prepares a job of s running the program with args in a folder of its own, and starts it.
func start(t *testing.T, s Subject, prog, args string) *running {
	t.Helper()
	r := prepare(t, s, prog, args)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	h, err := s.Runtime.Start(ctx, r.job, runtime.Run{Args: args, Env: os.Environ(), Stdout: r.stdout})
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	r.h = h
	t.Cleanup(func() { h.Stop(grace) })
	return r
}

// prepare makes a job of s that runs the program with args, in a folder of its own under s.Dir,
// and has s accept, check and prepare it.
func prepare(t *testing.T, s Subject, prog, args string) *running {
	t.Helper()
	id := runtime.NewJobID()
	dir := jobDir(t, s.Dir, id)
	data, err := os.ReadFile(prog)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, Program), data, 0o755); err != nil {
		t.Fatal(err)
	}
	r := &running{stdout: output.New(0)}
	if _, port, ok := strings.Cut(args, " "); ok {
		r.port = port
	}
	r.job = &runtime.Job{ID: id, Spec: s.Spec(t, dir, args), Dir: dir, Identity: s.Identity, Env: os.Environ(),
		Log: slog.New(slog.NewTextHandler(t.Output(), nil)), Out: output.New(0)}
	r.job.Warn = func(msg string) {
		r.mu.Lock()
		r.warnings = append(r.warnings, msg)
		r.mu.Unlock()
	}
	r.job.SetBuild = func(ms float64, reused bool) {
		r.mu.Lock()
		r.builds = append(r.builds, buildCall{ms, reused})
		r.mu.Unlock()
	}
	if !s.Runtime.Accepts(r.job.Spec) {
		t.Fatalf("the runtime does not accept the suite's job %+v", r.job.Spec)
	}
	if s.Runtime.Program(r.job.Spec) == "" {
		t.Errorf("Program names nothing for the suite's job %+v", r.job.Spec)
	}
	if problems := s.Runtime.Check(r.job.Spec); len(problems) > 0 {
		t.Fatalf("check refused the suite's job %+v: %v", r.job.Spec, problems)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	if err := s.Runtime.Prepare(ctx, r.job); err != nil {
		t.Fatalf("prepare: %v; output:\n%s", err, r.job.Out.Since(0))
	}
	return r
}

// jobDir makes the folder of job id under root (a folder of the test's own when root is "").
func jobDir(t *testing.T, root, id string) string {
	t.Helper()
	if root == "" {
		return t.TempDir()
	}
	dir := filepath.Join(root, id)
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	return dir
}

func freePort(t *testing.T) string { return strconv.Itoa(testutil.FreePorts(t, 1)[0]) }
