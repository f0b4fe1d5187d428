package agent

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"sync"
	"time"

	"github.com/crankshaft/crankshaft/internal/agent/output"
	"github.com/crankshaft/crankshaft/internal/agent/proc"
	"github.com/crankshaft/crankshaft/internal/agent/runtime"
	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/parsers"
)

// job is one job on this agent. Its run goroutine owns the processes; everything the HTTP side
// reads is under mu.
type job struct {
	id     string
	spec   api.Job
	dir    string
	log    *slog.Logger
	out    *output.Buffer
	parser parsers.Parser  // nil when the job names none
	user   *jobUser        // nil: the agent's own user
	rt     runtime.Runtime // runs its programs: processes or containers
	rj     *runtime.Job    // what its runtime sees of it
	// notMeasured are figures the tool printed but not as a value to trust (guarded by mu).
	notMeasured map[string]string
	// load is the load generator's window and histogram (guarded by mu).
	load *api.LoadReport
	// addedEnv is what the agent adds to the job's environment (a .NET job's ASPNETCORE_URLS),
	// outside the build cache's key.
	addedEnv map[string]string

	mu     sync.Mutex
	handle runtime.Handle // the measured run's program while it runs (profiles.go)
	window *profileWindow // the profiled window, once opened
	state  api.JobState
	// changed is closed, and replaced, at each state change: a status read that waits for the
	// next change waits on it (statuswait.go).
	changed  chan struct{}
	errMsg   string
	skipped  string
	warnings []string // what the job asked for and does not get (limits, counters)
	exitCode *int
	buildMs  float64
	startMs  float64
	reused   bool
	// buildLog is the length of the output once the source was ready: the clone and build log.
	buildLog int64
	// measuredStart is when the measured run's process started (after any warm-up run), and
	// measuredEnd when it exited (zero before).
	measuredStart, measuredEnd time.Time
	// uploads holds each completed upload's digest of what it extracted (extract.ExtractRoot), its
	// build cache identity, by source name ("" the job's own source).
	uploads       map[string]string
	busy          bool                    // an upload is being extracted
	abort         context.CancelCauseFunc // ends the upload in progress; nil when none
	uploadDone    chan struct{}           // closed when the upload in progress has ended
	uploadsClosed bool                    // the job is being deleted: no upload may begin
	leaseAt       time.Time
	samples       []api.Measurement
	custom        []api.Metadata     // declared by the job's #StartJobStatistics blocks
	cancel        context.CancelFunc // ends the run goroutine; nil until started
	done          chan struct{}      // closed when the run goroutine has returned
	deleted       bool
	expired       bool // the lease loop is deleting it
}

// validate checks what a job needs before it is accepted.
func (a *Agent) validate(j api.Job) (parsers.Parser, error) {
	var problems []string
	if rt, ok := a.runtimes.For(j); ok {
		problems = rt.Check(j)
	} else {
		problems = []string{"no runtime of this agent runs such a job"}
	}
	if src := j.Source; src != nil && src.Repository != "" {
		for _, err := range []error{checkRepository(src.Repository), checkRevision(src.BranchOrCommit)} {
			if err != nil {
				problems = append(problems, err.Error())
			}
		}
	}
	problems = append(problems, checkNamedSources(j.Sources)...)
	problems = append(problems, checkProfiles(j, a.perfProbe)...)
	if err := checkCPUSet(j.CpuSet); err != nil {
		problems = append(problems, err.Error())
	}
	var p parsers.Parser
	if j.Parser != "" {
		var ok bool
		if p, ok = a.opts.Parsers[j.Parser]; !ok {
			problems = append(problems, fmt.Sprintf("parser %q is not known to this agent", j.Parser))
		}
	}
	if len(problems) > 0 {
		return nil, badRequest("job %q: %s", j.Name, strings.Join(problems, "; "))
	}
	return p, nil
}

// createJob makes the job and its folder; it is New, or Waiting for an upload. A job whose
// required platform is not this machine's is marked Skipped: it stays New and never runs.
func (a *Agent) createJob(spec api.Job) (*job, error) {
	spec, toolchain, addedEnv, err := a.dotnetJob(context.Background(), spec)
	if err != nil {
		return nil, err
	}
	parser, err := a.validate(spec)
	if err != nil {
		return nil, err
	}
	usr, err := lookupUser(spec.User)
	if err != nil {
		return nil, badRequest("job %q: %v", spec.Name, err)
	}
	id := runtime.NewJobID()
	j := &job{
		id: id, spec: spec, addedEnv: addedEnv, dir: filepath.Join(a.opts.Dir, id), parser: parser, user: usr,
		log: a.log.With("job", id, "service", spec.Service), out: output.New(0),
		state: api.StateNew, changed: make(chan struct{}), leaseAt: time.Now(),
	}
	j.rt, _ = a.runtimes.For(spec) // validate found one
	j.rj = &runtime.Job{ID: id, Spec: spec, Dir: j.dir, Log: j.log, Out: j.out, Warn: j.warn, SetBuild: j.setBuild,
		Credential: usr.credential(), User: usr.keyName(), Own: usr.own, Toolchain: toolchain}
	if err := os.Mkdir(j.dir, 0o700); err != nil { // another local user must not read a job's files (its secrets)
		return nil, fmt.Errorf("job %s: folder: %w", id, err)
	}
	j.log.Info("job created", "name", spec.Name, "executable", spec.Executable, "dir", j.dir)
	if why := platformMismatch(spec.Options); why != "" {
		j.skipped = why // it stays New and never runs
		j.log.Info("job skipped", "why", why)
	} else if len(j.awaited()) > 0 {
		_ = j.move(api.StateWaiting, "source to be uploaded")
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed { // checked where the job is added, so Shutdown cannot miss it
		_ = os.RemoveAll(j.dir)
		return nil, &httpError{http.StatusServiceUnavailable, "the agent is shutting down"}
	}
	if len(a.jobs) >= a.opts.MaxJobs {
		_ = os.RemoveAll(j.dir)
		return nil, &httpError{http.StatusTooManyRequests, fmt.Sprintf("job %q: the agent already holds %d jobs, its most "+
			"(--max-jobs): delete finished ones, or wait for their lease to run out", spec.Name, len(a.jobs))}
	}
	a.jobs[id] = j
	return j, nil
}

// platformMismatch says why this machine does not suit the job, or "" when it does. crank's
// names are accepted (x64, osx).
func platformMismatch(o api.Options) string {
	alias := map[string]string{"x64": "amd64", "x86_64": "amd64", "x86": "386", "aarch64": "arm64", "osx": "darwin", "macos": "darwin"}
	norm := func(s string) string {
		s = strings.ToLower(strings.TrimSpace(s))
		if a, ok := alias[s]; ok {
			return a
		}
		return s
	}
	var why []string
	if a := norm(o.RequiredArchitecture); a != "" && a != goruntime.GOARCH {
		why = append(why, fmt.Sprintf("requires architecture %s, this agent is %s", o.RequiredArchitecture, goruntime.GOARCH))
	}
	if s := norm(o.RequiredOperatingSystem); s != "" && s != goruntime.GOOS {
		why = append(why, fmt.Sprintf("requires operating system %s, this agent is %s", o.RequiredOperatingSystem, goruntime.GOOS))
	}
	return strings.Join(why, "; ")
}

// status is the job's wire status.
func (j *job) status() api.JobStatus {
	j.mu.Lock()
	defer j.mu.Unlock()
	s := api.JobStatus{ID: j.id, State: j.state, Error: j.errMsg, Skipped: j.skipped,
		BuildTimeMs: j.buildMs, StartTimeMs: j.startMs, BuildReused: j.reused, BuildLogBytes: j.buildLog,
		Warnings: append([]string(nil), j.warnings...)}
	if j.exitCode != nil {
		c := *j.exitCode
		s.ExitCode = &c
	}
	if !j.measuredStart.IsZero() {
		t := j.measuredStart
		s.MeasuredStart = &t
	}
	if !j.measuredEnd.IsZero() {
		t := j.measuredEnd
		s.MeasuredEnd = &t
	}
	return s
}

// renew pushes the job's lease back.
func (j *job) renew() {
	j.mu.Lock()
	j.leaseAt = time.Now()
	j.mu.Unlock()
}

// expire reports, once, that the job's lease has run out.
func (j *job) expire(now time.Time, lease time.Duration) bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.expired || j.busy || now.Sub(j.leaseAt) <= lease { // an upload in progress holds the lease
		return false
	}
	j.expired = true
	return true
}

// notMeasure records figures the job's tool printed but not as a value to trust, with why.
func (j *job) notMeasure(why map[string]string) {
	if len(why) == 0 {
		return
	}
	j.mu.Lock()
	if j.notMeasured == nil {
		j.notMeasured = map[string]string{}
	}
	maps.Copy(j.notMeasured, why)
	j.mu.Unlock()
}

// setLoadReport keeps the load generator's report of its window.
func (j *job) setLoadReport(r *api.LoadReport) {
	j.mu.Lock()
	j.load = r
	j.mu.Unlock()
}

// record appends measurements.
func (j *job) record(ms ...api.Measurement) {
	j.mu.Lock()
	j.samples = append(j.samples, ms...)
	j.mu.Unlock()
}

// measurements returns every sample and the metadata of each name present: from the catalog, or
// a plain "max" entry for a name the catalog does not know.
func (a *Agent) measurements(j *job) api.Measurements {
	j.mu.Lock()
	ms := append([]api.Measurement(nil), j.samples...)
	notMeasured := maps.Clone(j.notMeasured)
	load := j.load
	j.mu.Unlock()
	out := api.Measurements{Metadata: []api.Metadata{}, Measurements: ms, NotMeasured: notMeasured, Load: load}
	seen := map[string]bool{}
	for _, m := range ms {
		if seen[m.Name] {
			continue
		}
		seen[m.Name] = true
		md, ok := customMetadata(j, m.Name)
		if !ok {
			md, ok = a.opts.Catalog.Lookup(m.Name)
		}
		if !ok {
			md = api.Metadata{Source: j.spec.Service, Name: m.Name, Aggregate: api.OpMax, Reduce: api.OpMax,
				Format: "n2", ShortDescription: m.Name, LongDescription: m.Name}
		}
		out.Metadata = append(out.Metadata, md)
	}
	return out
}

// warn records, once, something the job asked for and does not get; the controller prints it.
func (j *job) warn(msg string) {
	j.mu.Lock()
	defer j.mu.Unlock()
	for _, w := range j.warnings {
		if w == msg {
			return
		}
	}
	j.warnings = append(j.warnings, msg)
	j.log.Warn("job warning", "warning", msg)
	j.out.WriteString("warning: " + msg + "\n")
}

// setExit records the measured process's exit code, and the first exit's time as its end.
func (j *job) setExit(e proc.Exit) {
	j.mu.Lock()
	j.exitCode = &e.Code
	if j.measuredEnd.IsZero() && !j.measuredStart.IsZero() {
		j.measuredEnd = e.Time
	}
	j.mu.Unlock()
}

// measuredStartTime is when the measured run's process started (zero before).
func (j *job) measuredStartTime() time.Time {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.measuredStart
}
