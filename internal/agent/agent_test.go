package agent

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/agent/proc"
	"github.com/crankshaft/crankshaft/internal/api"
)

// helperEnv makes the test binary act as a job process (see TestMain).
const helperEnv = "CRANK_AGENT_TEST_HELPER"

func TestMain(m *testing.M) {
	switch os.Getenv(helperEnv) {
	case "burn":
		burnHalfCore(30 * time.Second)
		os.Exit(0)
	case "embedded":
		embeddedThenWait()
	}
	os.Exit(m.Run())
}

// burnHalfCore keeps this process's CPU time at half of the wall time since it started: it spins
// while behind, sleeps while ahead, so being descheduled does not lower the average. It raises its
// thread's priority when allowed (root), so that a machine busy with other work still gives it
// its half core.
func burnHalfCore(d time.Duration) {
	runtime.LockOSThread()
	_ = syscall.Setpriority(syscall.PRIO_PROCESS, 0, -10) // this thread only, on Linux
	cpu := func() time.Duration {
		var ru syscall.Rusage
		_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	start, cpu0 := time.Now(), cpu()
	os.Stdout.WriteString("burning\n")
	for time.Since(start) < d {
		if cpu()-cpu0 < time.Since(start)/2 {
			for t := time.Now(); time.Since(t) < time.Millisecond; {
			}
		} else {
			time.Sleep(time.Millisecond)
		}
	}
}

type testAgent struct {
	*Agent
	c *api.Client
}

func newTestAgent(t *testing.T, opts Options) *testAgent {
	t.Helper()
	if opts.Dir == "" {
		opts.Dir = t.TempDir()
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	a, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(a.Handler())
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		if err := a.Shutdown(ctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
		srv.Close()
	})
	c, err := api.NewClient(srv.URL, a.Token(), srv.Client())
	if err != nil {
		t.Fatal(err)
	}
	return &testAgent{Agent: a, c: c}
}

// submit creates and starts a job.
func (ta *testAgent) submit(t *testing.T, j api.Job) string {
	t.Helper()
	ctx := context.Background()
	id, err := ta.c.Submit(ctx, j)
	if err != nil {
		t.Fatalf("submit: %v", err)
	}
	if err := ta.c.Start(ctx, id); err != nil {
		t.Fatalf("start: %v", err)
	}
	return id
}

// waitState polls the job's status until it is one of want.
func (ta *testAgent) waitState(t *testing.T, id string, want ...api.JobState) api.JobStatus {
	t.Helper()
	// A bound, not a measure: a Docker job's clone and build took past 15 s in a gate run beside
	// three builds (load 10-17).
	deadline := time.Now().Add(2 * time.Minute)
	for {
		st, err := ta.c.Status(context.Background(), id)
		if err != nil {
			t.Fatalf("status: %v", err)
		}
		for _, w := range want {
			if st.State == w {
				return st
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("job %s is %s (error %q), want %v", id, st.State, st.Error, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitOutput polls the job's output until it holds text.
func (ta *testAgent) waitOutput(t *testing.T, id, text string) string {
	t.Helper()
	deadline := time.Now().Add(time.Minute) // a bound, not a measure
	for {
		out, err := ta.c.Output(context.Background(), id, 0)
		if err != nil {
			t.Fatalf("output: %v", err)
		}
		if strings.Contains(out, text) {
			return out
		}
		if time.Now().After(deadline) {
			t.Fatalf("output %q does not hold %q", out, text)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitGone polls until pid no longer exists (signal 0 answers ESRCH).
func waitGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for proc.Alive(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("process %d is still alive", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitNoFile polls until path does not exist.
func waitNoFile(t *testing.T, path string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s still exists", path)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func statusCode(err error) int {
	var ae *api.AgentError
	if errors.As(err, &ae) {
		return ae.StatusCode
	}
	return 0
}

// fakeParser reads "rps=<n>" lines.
type fakeParser struct{}

func (fakeParser) Name() string { return "fake" }
func (fakeParser) Files() map[string][]byte {
	return map[string][]byte{"scripts/fake.lua": []byte("-- helper file\n")}
}
func (fakeParser) Parse(r io.Reader) (map[string]float64, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "rps="); ok {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				return nil, err
			}
			return map[string]float64{"http/rps/mean": f}, nil
		}
	}
	return nil, errors.New("no rps line")
}
