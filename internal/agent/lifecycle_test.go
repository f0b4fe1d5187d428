package agent

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/measure"
	"github.com/crankshaft/crankshaft/internal/parsers"
	"github.com/crankshaft/crankshaft/internal/parsers/bombardier"
)

func TestJobLifecycle(t *testing.T) {
	t.Parallel()
	ta := newTestAgent(t, Options{Interval: 50 * time.Millisecond})
	ctx := context.Background()
	id := ta.submit(t, api.Job{Service: "application", Name: "sleeper", Executable: "sh",
		Arguments: `-c 'echo "get ready"; sleep 30'`, ReadyStateText: "ready"})
	st := ta.waitState(t, id, api.StateRunning)
	if st.StartTimeMs <= 0 || st.StartTimeMs > 5000 || st.Error != "" {
		t.Errorf("running status = %+v", st)
	}
	if out, err := ta.c.Output(ctx, id, 0); err != nil || out != "get ready\n" {
		t.Errorf("output = %q, %v", out, err)
	}
	if out, err := ta.c.Output(ctx, id, 4); err != nil || out != "ready\n" {
		t.Errorf("output since 4 = %q, %v", out, err)
	}
	dir := filepath.Join(ta.Dir(), id)
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		t.Fatalf("job folder: %v", err)
	}
	if err := ta.c.Stop(ctx, id); err != nil {
		t.Fatal(err)
	}
	st = ta.waitState(t, id, api.StateStopped)
	if st.ExitCode == nil || *st.ExitCode != -1 {
		t.Errorf("exit code after stop = %v, want -1 (signal)", st.ExitCode)
	}
	ms, err := ta.c.Measurements(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]int{}
	for _, m := range ms.Measurements {
		names[m.Name]++
	}
	if names[measure.StartTime] != 1 {
		t.Errorf("measurements %v: want one start-time", names)
	}
	for _, md := range ms.Metadata {
		if md.Name == measure.StartTime && md.Unit != measure.UnitMs {
			t.Errorf("start-time metadata = %+v", md)
		}
	}
	if err := ta.c.Delete(ctx, id); err != nil {
		t.Fatal(err)
	}
	if _, err := ta.c.Status(ctx, id); statusCode(err) != http.StatusNotFound {
		t.Errorf("status after delete: %v, want 404", err)
	}
	waitNoFile(t, dir)
}

func TestWaitForExitParsesMeasuredRun(t *testing.T) {
	t.Parallel()
	ta := newTestAgent(t, Options{Parsers: map[string]parsers.Parser{"fake": fakeParser{}}})
	ctx := context.Background()
	id := ta.submit(t, api.Job{Executable: "sh", WaitForExit: true, Parser: "fake",
		WarmupArguments: `-c 'echo rps=999'`,
		Arguments:       `-c 'cat scripts/fake.lua; echo rps=1234.5; echo noise >&2'`})
	before := time.Now()
	st := ta.waitState(t, id, api.StateStopped, api.StateFailed)
	if st.State != api.StateStopped || st.ExitCode == nil || *st.ExitCode != 0 {
		t.Fatalf("status = %+v", st)
	}
	if st.MeasuredStart == nil || st.MeasuredStart.After(time.Now()) || st.MeasuredStart.Before(before.Add(-10*time.Second)) {
		t.Errorf("measured start = %v", st.MeasuredStart)
	}
	out, _ := ta.c.Output(ctx, id, 0)
	for _, want := range []string{"rps=999", "-- helper file", "rps=1234.5", "noise"} {
		if !strings.Contains(out, want) {
			t.Errorf("output %q lacks %q", out, want)
		}
	}
	ms, err := ta.c.Measurements(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	var rps []api.Measurement
	for _, m := range ms.Measurements {
		if m.Name == measure.RPS {
			rps = append(rps, m)
		}
	}
	if len(rps) != 1 || rps[0].Value != 1234.5 || rps[0].Timestamp.IsZero() {
		t.Errorf("rps measurements = %+v, want one 1234.5 from the measured run", rps)
	}
	// The measured run's end is its process's exit, the time its figures are stamped with.
	if st.MeasuredEnd == nil || st.MeasuredStart == nil || len(rps) != 1 || !st.MeasuredEnd.Equal(rps[0].Timestamp) || !st.MeasuredEnd.After(*st.MeasuredStart) {
		t.Errorf("measured end = %v, want the exit that stamped %+v, after the start %v", st.MeasuredEnd, rps, st.MeasuredStart)
	}
	found := false
	for _, md := range ms.Metadata {
		found = found || (md.Name == measure.RPS && md.Unit == measure.UnitRPS)
	}
	if !found {
		t.Errorf("metadata %+v lacks %s", ms.Metadata, measure.RPS)
	}
}

func TestWaitForExitFailures(t *testing.T) {
	t.Parallel()
	ta := newTestAgent(t, Options{Parsers: map[string]parsers.Parser{"fake": fakeParser{}}})
	cases := []struct {
		name string
		job  api.Job
		want []string
	}{
		{"non-zero exit", api.Job{Arguments: `-c 'echo rps=1; echo bad-flag >&2; exit 4'`}, []string{"exit code 4", "bad-flag"}},
		{"parse error", api.Job{Arguments: `-c 'echo garbage'`}, []string{`parser "fake"`, "no rps line", "garbage"}},
		{"timeout", api.Job{Arguments: `-c 'echo slow; sleep 30'`, Timeout: api.Duration(300 * time.Millisecond)}, []string{"did not exit within 300ms", "slow"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.job.Executable, c.job.WaitForExit, c.job.Parser = "sh", true, "fake"
			st := ta.waitState(t, ta.submit(t, c.job), api.StateFailed, api.StateStopped)
			if st.State != api.StateFailed {
				t.Fatalf("status = %+v, want Failed", st)
			}
			for _, w := range c.want {
				if !strings.Contains(st.Error, w) {
					t.Errorf("error %q lacks %q", st.Error, w)
				}
			}
		})
	}
}

func TestStartFailures(t *testing.T) {
	t.Parallel()
	ta := newTestAgent(t, Options{})
	cases := []struct {
		name     string
		job      api.Job
		want     []string
		exitCode int
	}{
		{"start timeout quotes output", api.Job{Executable: "sh", Arguments: `-c 'echo booting; echo still-booting; sleep 30'`,
			ReadyStateText: "never-printed", StartTimeout: api.Duration(400 * time.Millisecond)},
			[]string{"not ready within 400ms", `"never-printed"`, "booting\nstill-booting"}, -1},
		{"exit before ready", api.Job{Executable: "sh", Arguments: `-c 'echo oops; exit 3'`, ReadyStateText: "ready"},
			[]string{"exited before it was ready", "exit code 3", "oops"}, 3},
		{"port never open", api.Job{Executable: "sh", Arguments: `-c 'exit 0'`, Port: 1},
			[]string{"exited before it was ready", "port 1"}, 0},
		{"build failure", api.Job{Executable: "sh", BuildCommand: "echo compiling; echo broken-code >&2; exit 2"},
			[]string{"build failed (exit code 2)", "compiling\nbroken-code"}, 0},
		{"unknown executable", api.Job{Executable: "no-such-tool-xyz"}, []string{`"no-such-tool-xyz"`, "not found"}, 0},
		{"executable outside the folder", api.Job{Executable: "../../bin/sh"}, []string{`"../../bin/sh"`}, 0},
		{"bad arguments", api.Job{Executable: "sh", Arguments: `-c "unterminated`}, []string{"unterminated"}, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			st := ta.waitState(t, ta.submit(t, c.job), api.StateFailed, api.StateRunning, api.StateStopped)
			if st.State != api.StateFailed {
				t.Fatalf("status = %+v, want Failed", st)
			}
			for _, w := range c.want {
				if !strings.Contains(st.Error, w) {
					t.Errorf("error %q lacks %q", st.Error, w)
				}
			}
			if c.exitCode != 0 && (st.ExitCode == nil || *st.ExitCode != c.exitCode) {
				t.Errorf("exit code = %v, want %d", st.ExitCode, c.exitCode)
			}
		})
	}
}

func TestSubmitValidationAndSkip(t *testing.T) {
	t.Parallel()
	ta := newTestAgent(t, Options{})
	ctx := context.Background()
	for _, j := range []api.Job{{Name: "noexe"}, {Executable: "sh", Parser: "nope"}} {
		if _, err := ta.c.Submit(ctx, j); statusCode(err) != http.StatusBadRequest {
			t.Errorf("submit %+v: %v, want 400", j, err)
		}
	}
	id := ta.submit(t, api.Job{Executable: "sh", Arguments: "-c 'sleep 30'",
		Options: api.Options{RequiredArchitecture: "sparc-nope", RequiredOperatingSystem: "plan9"}})
	st, err := ta.c.Status(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if st.State != api.StateNew || !strings.Contains(st.Skipped, "sparc-nope") || !strings.Contains(st.Skipped, "plan9") {
		t.Errorf("skipped job status = %+v", st)
	}
	if platformMismatch(api.Options{RequiredArchitecture: "x64"}) != "" && platformMismatch(api.Options{RequiredArchitecture: "arm64"}) != "" {
		t.Error("neither x64 nor arm64 matches this machine")
	}
}

func TestWarmupSamplesMarked(t *testing.T) {
	t.Parallel()
	ta := newTestAgent(t, Options{})
	id := ta.submit(t, api.Job{Executable: "sh", WaitForExit: true, Interval: api.Duration(50 * time.Millisecond),
		WarmupArguments: `-c 'sleep 0.4'`, Arguments: `-c 'sleep 0.4'`})
	st := ta.waitState(t, id, api.StateStopped, api.StateFailed)
	if st.State != api.StateStopped {
		t.Fatalf("status = %+v", st)
	}
	ms, err := ta.c.Measurements(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	warm, measured := 0, 0
	for _, m := range ms.Measurements {
		if m.Name != measure.WorkingSet {
			continue
		}
		if m.Warmup {
			warm++
			if st.MeasuredStart != nil && m.Timestamp.After(*st.MeasuredStart) {
				t.Errorf("warm-up sample at %v, after the measured start %v", m.Timestamp, *st.MeasuredStart)
			}
		} else {
			measured++
		}
	}
	if warm < 2 || measured < 2 {
		t.Errorf("%d warm-up and %d measured working-set samples, want at least 2 of each", warm, measured)
	}
}

// TestImplausibleFiguresNotMeasured: a real parser (bombardier's) given an output whose p99 is below
// its p50 keeps the other figures, and the agent reports the p99 as not measured, with why, instead
// of a number no run can give.
func TestImplausibleFiguresNotMeasured(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("../parsers/bombardier/testdata/plaintext/output.txt")
	if err != nil {
		t.Fatal(err)
	}
	lying := strings.Replace(string(b), `"99":585`, `"99":40`, 1)
	if lying == string(b) {
		t.Fatal("the captured output changed: no p99 of 585 µs to replace")
	}
	out := filepath.Join(t.TempDir(), "out.json")
	if err := os.WriteFile(out, []byte(lying), 0o644); err != nil {
		t.Fatal(err)
	}
	ta := newTestAgent(t, Options{Parsers: map[string]parsers.Parser{"bombardier": bombardier.Parser{}}})
	id := ta.submit(t, api.Job{Executable: "cat", Arguments: out, WaitForExit: true, Parser: "bombardier"})
	if st := ta.waitState(t, id, api.StateStopped, api.StateFailed); st.State != api.StateStopped {
		t.Fatalf("status %+v", st)
	}
	ms, err := ta.c.Measurements(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, m := range ms.Measurements {
		got[m.Name] = true
	}
	if got[measure.Latency99] || !got[measure.Latency50] || !got[measure.RPS] {
		t.Errorf("measurements %v: want p50 and RPS kept, p99 gone", got)
	}
	if why := ms.NotMeasured[measure.Latency99]; !strings.Contains(why, "below http/latency/95") {
		t.Errorf("not measured %v: want p99 said to fall below p95", ms.NotMeasured)
	}
}
