package runtimetest

import (
	"fmt"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/agent/output"
	"github.com/crankshaft/crankshaft/internal/agent/proc"
	"github.com/crankshaft/crankshaft/internal/agent/runtime"
)

// readyWithin bounds the wait for the program's "ready" (a container's start included).
const readyWithin = 30 * time.Second

// waitText waits until buf holds text, the program ends, or readyWithin passes.
func waitText(t *testing.T, r *running, buf *output.Buffer, text string) {
	t.Helper()
	timer := time.NewTimer(readyWithin)
	defer timer.Stop()
	for {
		changed := buf.Changed() // taken before the look, so no write is missed
		if buf.Index(text, 0) >= 0 {
			return
		}
		select {
		case <-changed:
		case <-r.h.Wait():
			if buf.Index(text, 0) >= 0 {
				return
			}
			t.Fatalf("%s ended (%s) before printing %q; output:\n%s%s", r.h, r.h.Exit(), text, buf.Since(0), r.job.Out.Since(0))
		case <-timer.C:
			t.Fatalf("%s did not print %q within %s; output:\n%s%s", r.h, text, readyWithin, buf.Since(0), r.job.Out.Since(0))
		}
	}
}

// stopTimed stops (or interrupts) the program and says how long it took.
func stopTimed(stop func(time.Duration) proc.Exit) (proc.Exit, time.Duration) {
	start := time.Now()
	e := stop(grace)
	return e, time.Since(start)
}

// readyThenStop: the program's output reaches stdout and its port accepts connections; a stop
// sends SIGTERM, which it honours within the grace, with its own exit code.
func readyThenStop(t *testing.T, _ Subject, r *running) {
	waitText(t, r, r.stdout, "ready")
	c, err := net.DialTimeout("tcp", net.JoinHostPort("127.0.0.1", r.port), 5*time.Second)
	if err != nil {
		t.Fatalf("ready, but port %s: %v", r.port, err)
	}
	c.Close()
	honoured(t, r, r.h.Stop, 3, "terminated")
	select {
	case <-r.h.Wait():
	default:
		t.Error("Wait not closed after Stop returned")
	}
}

// waitExit: a program that exits on its own closes Wait, and Exit is its exit code; a later Stop
// returns the same.
func waitExit(t *testing.T, _ Subject, r *running) {
	select {
	case <-r.h.Wait():
	case <-time.After(readyWithin):
		t.Fatalf("%s did not exit within %s", r.h, readyWithin)
	}
	if e := r.h.Exit(); e.Code != 7 || e.Signal != "" {
		t.Errorf("exit %s (%+v), want exit code 7", e, e)
	}
	if e := r.h.Stop(grace); e.Code != 7 {
		t.Errorf("stop after the exit: %s, want exit code 7 again", e)
	}
	waitText(t, r, r.stdout, "exiting")
}

// stopForced: a program that ignores SIGTERM is killed once the grace has passed.
func stopForced(t *testing.T, s Subject, r *running) {
	waitText(t, r, r.stdout, "ready")
	select {
	case <-r.h.Wait():
		t.Fatalf("%s ended (%s) before it was stopped; output:\n%s", r.h, r.h.Exit(), r.job.Out.Since(0))
	default:
	}
	e, took := stopTimed(r.h.Stop)
	if e.Signal == "" && e.Code != 128+9 { // a process's signal, or a container's status after SIGKILL
		t.Errorf("stop of a program that ignores SIGTERM: %s (%+v), want it killed", e, e)
	}
	if took < grace {
		t.Errorf("stop took %s: the program was not given its grace of %s", took, grace)
	}
	if limit := grace + 10*time.Second + s.Bound; took > limit {
		t.Errorf("stop took %s, want within %s", took, limit)
	}
}

// interrupt: Interrupt sends SIGINT, on which the program prints and exits with its own code.
func interrupt(t *testing.T, _ Subject, r *running) {
	waitText(t, r, r.stdout, "ready")
	honoured(t, r, r.h.Interrupt, 4, "interrupted")
}

// stats: a busy program's CPU and memory are sampled above 0.
func stats(t *testing.T, _ Subject, r *running) {
	waitText(t, r, r.stdout, "ready")
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	deadline := time.NewTimer(15 * time.Second)
	defer deadline.Stop()
	var lastErr error
	for {
		st, err := r.h.Stats()
		switch {
		case err != nil:
			lastErr = err
		case st.CPURaw > 0 && st.WorkingSetMB >= 16:
			t.Logf("sampled CPU %.1f %% of a core, working set %.1f MB", st.CPURaw, st.WorkingSetMB)
			return
		default:
			lastErr = nil
			t.Logf("sample CPU %.1f %%, working set %.1f MB", st.CPURaw, st.WorkingSetMB)
		}
		select {
		case <-tick.C:
		case <-r.h.Wait():
			t.Fatalf("%s ended (%s) while sampled", r.h, r.h.Exit())
		case <-deadline.C:
			t.Fatalf("no sample with CPU above 0 and the program's 32 MiB held within 15 s (last error: %v)", lastErr)
		}
	}
}

// engineHangs: with the engine no longer answering, Stop returns within the grace and the
// runtime's bound, says the program is not known to have ended, and warns the job.
func engineHangs(t *testing.T, s Subject, r *running) {
	waitText(t, r, r.stdout, "ready")
	s.Hang()
	e, took := stopTimed(r.h.Stop)
	if limit := grace + s.Bound + 2*time.Second; took > limit {
		t.Fatalf("stop with a hung engine took %s, want within %s", took.Round(100*time.Millisecond), limit)
	}
	if e.Success() || e.Signal == "" {
		t.Errorf("stop with a hung engine: %s (%+v), want a failure saying why", e, e)
	}
	if w := r.warned(); len(w) == 0 || !strings.Contains(strings.Join(w, "\n"), "may be left running") {
		t.Errorf("warnings %q: want the job told its program may be left running", w)
	}
	if e2, took := stopTimed(r.h.Stop); took > time.Second || e2.Signal != e.Signal {
		t.Errorf("a second stop took %s and said %s: want the first answer at once", took, e2)
	}
}

// honoured stops the program with stop (its signal, then the grace) and checks that it ended at
// once with its own exit code, having printed word.
func honoured(t *testing.T, r *running, stop func(time.Duration) proc.Exit, code int, word string) {
	t.Helper()
	e, took := stopTimed(stop)
	if e.Code != code || e.Signal != "" {
		t.Errorf("%s: %s (%+v), want exit code %d (the signal honoured)", word, e, e, code)
	}
	if took >= grace+5*time.Second {
		t.Errorf("%s took %s for a program that honours the signal at once", word, took)
	}
	if !strings.Contains(string(r.stdout.Since(0)), word) {
		t.Errorf("stdout %q: want the program's %q", r.stdout.Since(0), word)
	}
}

// pids: a handle a profiler can record (runtime.Profiled) names the program's live processes.
func pids(t *testing.T, _ Subject, r *running) {
	waitText(t, r, r.stdout, "ready")
	pr, ok := r.h.(runtime.Profiled)
	if !ok {
		t.Log("this runtime's handles name no processes: collect is not honoured for its jobs")
		return
	}
	ps, err := pr.Pids()
	if err != nil || len(ps) == 0 {
		t.Fatalf("Pids: %v, %v", ps, err)
	}
	for _, pid := range ps {
		if _, err := os.Stat(fmt.Sprintf("/proc/%d", pid)); err != nil {
			t.Errorf("process %d of %v: %v", pid, ps, err)
		}
	}
}
