package profiler

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/crankshaft/crankshaft/internal/profiles"
	"github.com/google/pprof/profile"
)

// Bounds on perf: how long it has to write its file once interrupted, how long perf script may
// take, and how much text it may print.
const (
	perfStopGrace  = 10 * time.Second
	perfScriptTime = 2 * time.Minute
	maxPerfScript  = 512 << 20
)

// Probe says whether perf can record here: nil, or which of missing and not permitted it is.
func Probe(ctx context.Context) error {
	path, err := exec.LookPath("perf")
	if err != nil {
		return errors.New("perf is missing on the agent's machine (Debian: apt-get install linux-perf)")
	}
	dir, err := os.MkdirTemp("", "crank-perf-probe-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, "record", "-q", "-N", "-k", "realtime", "-e", "cpu-clock", "-F", "99", "-o", filepath.Join(dir, "p.data"), "--", "true")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.WaitDelay = time.Second
	if err := cmd.Run(); err != nil {
		paranoid, _ := os.ReadFile("/proc/sys/kernel/perf_event_paranoid")
		return fmt.Errorf("perf is not permitted to record here (%v: %s; kernel.perf_event_paranoid = %s): run the agent as root or lower it",
			err, firstLine(stderr.String()), strings.TrimSpace(string(paranoid)))
	}
	return nil
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// perfRun is a running perf record.
type perfRun struct {
	cmd    *exec.Cmd
	file   string
	stderr *bytes.Buffer
	done   chan struct{}
	// started is when perf was started, stopped when it was asked to stop (the window's end).
	started, stopped time.Time
}

// startPerf starts perf record on pids (their children, forked later, too) into dir.
func startPerf(dir string, a PerfArgs, pids []int) (*perfRun, error) {
	path, err := exec.LookPath("perf")
	if err != nil {
		return nil, errors.New("perf is missing on the agent's machine")
	}
	r := &perfRun{file: filepath.Join(dir, "perf.data"), stderr: &bytes.Buffer{}, done: make(chan struct{})}
	r.cmd = exec.Command(path, a.args(r.file, pids)...)
	r.cmd.Stderr = r.stderr
	r.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := r.cmd.Start(); err != nil {
		return nil, fmt.Errorf("perf record: %w", err)
	}
	r.started = time.Now()
	go func() { _ = r.cmd.Wait(); close(r.done) }()
	return r, nil
}

// stop interrupts perf record (it writes its file then), kills its group after perfStopGrace,
// and returns once it is reaped.
func (r *perfRun) stop() {
	r.stopped = time.Now()
	select {
	case <-r.done: // ended with its processes; its group may be gone, its id reused
		return
	default:
	}
	_ = syscall.Kill(-r.cmd.Process.Pid, syscall.SIGINT)
	select {
	case <-r.done:
	case <-time.After(perfStopGrace):
		_ = syscall.Kill(-r.cmd.Process.Pid, syscall.SIGKILL)
		<-r.done
	}
}

// profile reads what perf recorded, through perf script, into a profile.
func (r *perfRun) profile(ctx context.Context) (*profile.Profile, error) {
	if _, err := os.Stat(r.file); err != nil {
		return nil, fmt.Errorf("perf record wrote nothing (%s)", firstLine(r.stderr.String()))
	}
	ctx, cancel := context.WithTimeout(ctx, perfScriptTime)
	defer cancel()
	// --force: a job runs as its own user, and perf ignores a perf map (/tmp/perf-PID.map, a .NET
	// job's JIT frames) that neither root nor perf's user owns unless forced. The map is the job's
	// text, as its binaries' symbols are; the profile's names are cleaned where they are shown.
	cmd := exec.CommandContext(ctx, r.cmd.Path, "script", "--force", "-i", r.file, "-F", profiles.PerfFields)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("perf script: %w", err)
	}
	lr := &io.LimitedReader{R: out, N: maxPerfScript + 1}
	p, perr := profiles.ParsePerfScript(lr)
	_, _ = io.Copy(io.Discard, out) // let perf script end on an early parse error
	werr := cmd.Wait()
	switch {
	case lr.N <= 0:
		return nil, fmt.Errorf("perf script printed more than %d bytes", maxPerfScript)
	case werr != nil:
		return nil, fmt.Errorf("perf script: %v: %s", werr, firstLine(stderr.String()))
	}
	if perr == nil {
		window(p, r.started, r.stopped)
	}
	return p, perr
}

// window sets the profile's TimeNanos and DurationNanos to the window it recorded: from its first
// sample (perf's -k realtime stamps; perf takes a while to begin recording once started) to when
// perf was stopped, else from when perf was started, when the first sample is not within the
// window on the agent's clock.
func window(p *profile.Profile, started, stopped time.Time) {
	start := started.UnixNano()
	if first := p.TimeNanos; first > start && first < stopped.UnixNano() {
		start = first
	}
	p.TimeNanos, p.DurationNanos = start, stopped.UnixNano()-start
}
