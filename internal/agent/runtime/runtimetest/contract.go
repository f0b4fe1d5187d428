package runtimetest

import (
	"context"
	"net"
	"reflect"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/api"
)

// hungWithin bounds Describe and Cleanup when the engine stops answering: they return by their
// context's end, given this long.
const hungWithin = 2 * time.Second

// buildReused: a job that builds says so (SetBuild), and a second job of the same sources reuses
// what the first built (SetBuild(0, true)).
func buildReused(t *testing.T, newSubject Factory, prog string) {
	s := newSubject(t)
	if s.Identity == "" {
		t.Skip("the suite's jobs have no source identity: nothing is reused")
	}
	first := prepare(t, s, prog, "exit 0")
	if len(first.built()) == 0 {
		t.Fatalf("preparing a job recorded no build (SetBuild); output:\n%s", first.job.Out.Since(0))
	}
	second := prepare(t, s, prog, "exit 0")
	b := second.built()
	if len(b) != 1 || !b[0].reused || b[0].ms != 0 {
		t.Errorf("the second job of the same sources recorded builds %+v, want one reused (0 ms); output:\n%s", b, second.job.Out.Since(0))
	}
}

// describe: the runtime fills its part of /info.
func describe(t *testing.T, newSubject Factory, _ string) {
	s := newSubject(t)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	var info api.Info
	s.Runtime.Describe(ctx, &info)
	if reflect.DeepEqual(info, api.Info{}) {
		t.Fatal("Describe filled nothing of /info")
	}
	t.Logf("described: %+v", info)
}

// describeHung: with the engine no longer answering, Describe returns by its context's end and
// still says something (why there is no engine).
func describeHung(t *testing.T, newSubject Factory, _ string) {
	s := newSubject(t)
	if s.Hang == nil {
		t.Skip("this runtime has no engine that could hang")
	}
	s.Hang()
	ctx, cancel := context.WithTimeout(t.Context(), hungWithin)
	defer cancel()
	var info api.Info
	took := timed(func() { s.Runtime.Describe(ctx, &info) })
	if limit := hungWithin + time.Second; took > limit {
		t.Errorf("Describe with a hung engine took %s, want within %s", took.Round(100*time.Millisecond), limit)
	}
	if reflect.DeepEqual(info, api.Info{}) {
		t.Error("Describe with a hung engine filled nothing of /info: want why there is no engine")
	}
}

// cleanupLeftovers: a program left running by a runtime whose agent was killed is ended by the
// Cleanup of a new runtime on the same Dir, and Cleanup says no error.
func cleanupLeftovers(t *testing.T, newSubject Factory, prog string) {
	old := newSubject(t)
	if old.Dir == "" {
		t.Fatal("the Subject names no Dir: Cleanup has no job root to look in")
	}
	r := start(t, old, prog, "serve "+freePort(t))
	waitText(t, r, r.stdout, "ready")
	next := newSubject(t) // the agent started again on the same Dir
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	if err := next.Runtime.Cleanup(ctx); err != nil {
		t.Errorf("Cleanup: %v", err)
	}
	select {
	case <-r.h.Wait():
	case <-time.After(readyWithin):
		t.Fatalf("%s still runs %s after Cleanup", r.h, readyWithin)
	}
	if c, err := net.DialTimeout("tcp", net.JoinHostPort("127.0.0.1", r.port), time.Second); err == nil {
		c.Close()
		t.Errorf("port %s still accepts connections after Cleanup", r.port)
	}
	if err := next.Runtime.Cleanup(ctx); err != nil {
		t.Errorf("a second Cleanup, with nothing left: %v", err)
	}
}

// cleanupHung: with the engine no longer answering, Cleanup returns by its context's end.
func cleanupHung(t *testing.T, newSubject Factory, _ string) {
	s := newSubject(t)
	if s.Hang == nil {
		t.Skip("this runtime has no engine that could hang")
	}
	s.Hang()
	ctx, cancel := context.WithTimeout(t.Context(), hungWithin)
	defer cancel()
	var err error
	took := timed(func() { err = s.Runtime.Cleanup(ctx) })
	if limit := hungWithin + time.Second; took > limit {
		t.Errorf("Cleanup with a hung engine took %s, want within %s (said %v)", took.Round(100*time.Millisecond), limit, err)
	}
}

func timed(f func()) time.Duration {
	start := time.Now()
	f()
	return time.Since(start)
}
