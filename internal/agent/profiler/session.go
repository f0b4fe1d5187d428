package profiler

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"slices"
	"sync"

	"github.com/google/pprof/profile"
)

// MaxProfile bounds one profile as the agent keeps it (gzipped pprof).
const MaxProfile = 32 << 20

// Options say what a Session records.
type Options struct {
	// Perf, when set, records the processes Pids names with perf.
	Perf *PerfArgs
	// Pids are the job's processes when the window opens: perf follows what they start later.
	Pids []int
	// Dir is the folder perf writes its file in, made (0700) and removed by the session: one of the
	// agent's own, never the job's.
	Dir string
	// GoURL, when set, is the job's /debug/pprof/ (Go's CPU, mutex and block profiles).
	GoURL string
	Log   *slog.Logger
}

// Result is one profile of a window, or why it is missing.
type Result struct {
	Name string // "perf-cpu", "go-cpu", "go-mutex", "go-block"
	Data []byte // gzipped pprof
	Err  error
}

type result struct {
	p   *profile.Profile
	err error
}

// Session is one profiled window of a job.
type Session struct {
	log  *slog.Logger
	dir  string // perf's file, private to the agent
	perf *perfRun
	gor  *goRun

	once sync.Once
	out  []Result
}

// Start opens a window: perf and the Go profiles begin recording.
func Start(o Options) (*Session, error) {
	s := &Session{log: o.Log}
	if s.log == nil {
		s.log = slog.Default()
	}
	if o.Perf != nil {
		if len(o.Pids) == 0 {
			return nil, errors.New("collect: the job has no process to record")
		}
		dir := o.Dir
		if err := os.Mkdir(dir, 0o700); err != nil {
			return nil, fmt.Errorf("perf's folder: %w", err)
		}
		s.dir = dir
		var err error
		if s.perf, err = startPerf(dir, *o.Perf, o.Pids); err != nil {
			_ = os.RemoveAll(dir)
			return nil, err
		}
		s.log.Info("perf recording", "pids", o.Pids, "frequency", o.Perf.Frequency, "callGraph", o.Perf.CallGraph)
	}
	if o.GoURL != "" {
		s.gor = startGo(o.GoURL, s.log)
	}
	return s, nil
}

// Stop closes the window and returns its profiles; perf is stopped and reaped, its file removed.
// Later calls return the same results; Stop on an abandoned job (ctx cancelled) still reaps perf.
func (s *Session) Stop(ctx context.Context) []Result {
	s.once.Do(func() { s.out = s.stop(ctx) })
	return s.out
}

func (s *Session) stop(ctx context.Context) []Result {
	var out []Result
	if s.perf != nil {
		s.perf.stop()
		p, err := s.perf.profile(ctx)
		out = append(out, encode("perf-cpu", result{p: p, err: err}))
		if err := os.RemoveAll(s.dir); err != nil {
			s.log.Warn("perf's folder not removed", "dir", s.dir, "err", err)
		}
	}
	if s.gor != nil {
		got := s.gor.stop(ctx)
		for _, name := range slices.Sorted(maps.Keys(got)) {
			out = append(out, encode(name, got[name]))
		}
	}
	for _, r := range out {
		s.log.Info("profile", "name", r.Name, "bytes", len(r.Data), "err", r.Err)
	}
	return out
}

// emptyWhy says why a profile may have no samples.
var emptyWhy = map[string]string{
	"perf-cpu": "no samples in the window: the job's processes ran on no CPU",
	"go-cpu":   "no samples in the window: the app ran on no CPU",
	"go-mutex": "no lock contention sampled in the window (an app samples it once it calls runtime.SetMutexProfileFraction; ours: --mutex-profile-fraction N)",
	"go-block": "no blocking sampled in the window (an app samples it once it calls runtime.SetBlockProfileRate; ours: --block-profile-rate N)",
}

func encode(name string, r result) Result {
	if r.err != nil {
		return Result{Name: name, Err: r.err}
	}
	if r.p == nil || len(r.p.Sample) == 0 {
		return Result{Name: name, Err: errors.New(emptyWhy[name])}
	}
	var b bytes.Buffer
	if err := r.p.Write(&b); err != nil {
		return Result{Name: name, Err: err}
	}
	if b.Len() > MaxProfile {
		return Result{Name: name, Err: fmt.Errorf("larger than %d bytes", MaxProfile)}
	}
	return Result{Name: name, Data: b.Bytes()}
}
