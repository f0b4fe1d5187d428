package proc

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/testutil"
)

func waitGone(t *testing.T, pid int) {
	t.Helper()
	testutil.Eventually(t, 5*time.Second, fmt.Sprintf("process %d gone", pid), func() bool { return !Alive(pid) })
}

func TestExitAndOutput(t *testing.T) {
	var out, errOut testutil.SyncBuffer
	p, err := Start(Spec{Path: "/bin/sh", Args: []string{"-c", "echo out; echo err >&2; exit 3"}, Stdout: &out, Stderr: &errOut})
	if err != nil {
		t.Fatal(err)
	}
	<-p.Wait()
	e := p.Exit()
	if e.Code != 3 || e.Success() || e.String() != "exit code 3" {
		t.Errorf("exit = %+v", e)
	}
	if out.String() != "out\n" || errOut.String() != "err\n" {
		t.Errorf("stdout %q stderr %q", out.String(), errOut.String())
	}
}

// TestStopKillsGrandchildren: a shell that leaves a background child; Stop ends both.
func TestStopKillsGrandchildren(t *testing.T) {
	var out testutil.SyncBuffer
	p, err := Start(Spec{Path: "/bin/sh", Args: []string{"-c", "sleep 300 & echo $!; sleep 300"}, Stdout: &out})
	if err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, 5*time.Second, "the child's pid", func() bool { return strings.Contains(out.String(), "\n") })
	child, err := strconv.Atoi(strings.TrimSpace(out.String()))
	if err != nil {
		t.Fatalf("child pid from %q: %v", out.String(), err)
	}
	e := p.Stop(2 * time.Second)
	if e.Signal != "SIGTERM" {
		t.Errorf("exit = %+v, want killed by SIGTERM", e)
	}
	waitGone(t, p.Pid())
	waitGone(t, child)
}

// TestStopEscalates: a leader ignoring SIGTERM is killed after the timeout.
func TestStopEscalates(t *testing.T) {
	var out testutil.SyncBuffer
	p, err := Start(Spec{Path: "/bin/sh", Args: []string{"-c", "trap '' TERM; echo armed; while :; do sleep 1; done"}, Stdout: &out})
	if err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, 5*time.Second, "the shell's trap armed", func() bool { return strings.Contains(out.String(), "armed") })
	start := time.Now()
	e := p.Stop(200 * time.Millisecond)
	if e.Signal != "SIGKILL" || time.Since(start) < 200*time.Millisecond {
		t.Errorf("exit = %+v after %s, want SIGKILL after the timeout", e, time.Since(start))
	}
}

// TestLeaderExitKillsGroup: when the leader exits by itself its leftover children are killed.
func TestLeaderExitKillsGroup(t *testing.T) {
	var out testutil.SyncBuffer
	p, err := Start(Spec{Path: "/bin/sh", Args: []string{"-c", "sleep 300 & echo $!"}, Stdout: &out})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-p.Wait():
	case <-time.After(10 * time.Second):
		t.Fatal("no exit")
	}
	child, err := strconv.Atoi(strings.TrimSpace(out.String()))
	if err != nil {
		t.Fatalf("child pid from %q: %v", out.String(), err)
	}
	if !p.Exit().Success() {
		t.Errorf("exit = %+v", p.Exit())
	}
	waitGone(t, child)
}

func TestLookPath(t *testing.T) {
	dir := t.TempDir()
	other := t.TempDir()
	write := func(p string, mode os.FileMode) {
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"), mode); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(dir, "app"), 0o755)
	write(filepath.Join(dir, "data"), 0o644)
	write(filepath.Join(other, "tool"), 0o755)
	if err := os.Symlink(filepath.Join(other, "tool"), filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	if got, err := LookPath("./app", dir); err != nil || got != filepath.Join(dir, "app") {
		t.Errorf("./app = %q, %v", got, err)
	}
	if got, err := LookPath("tool", dir, other); err != nil || got != filepath.Join(other, "tool") {
		t.Errorf("tool = %q, %v", got, err)
	}
	if got, err := LookPath("sh", dir, other); err != nil || !strings.HasSuffix(got, "/sh") {
		t.Errorf("sh = %q, %v", got, err)
	}
	for _, bad := range []string{"./data", "../x/app", "./link", "./missing", "no-such-tool-xyz"} {
		if got, err := LookPath(bad, dir, other); err == nil {
			t.Errorf("LookPath(%q) = %q, want an error", bad, got)
		} else if !strings.Contains(err.Error(), bad) {
			t.Errorf("LookPath(%q): error %q does not name it", bad, err)
		}
	}
}

// TestLookPathSaysHowToBuildGoTools: a missing bombardier or ghz names `make tools`, which builds
// them (`make build` no longer does).
func TestLookPathSaysHowToBuildGoTools(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	for _, name := range []string{"bombardier", "ghz"} {
		_, err := LookPath(name, t.TempDir(), t.TempDir())
		if err == nil || !strings.Contains(err.Error(), "`make tools` builds bombardier and ghz") {
			t.Errorf("LookPath(%q) = %v, want an error naming make tools", name, err)
		}
	}
	if _, err := LookPath("wrk-xyz", t.TempDir()); err == nil || strings.Contains(err.Error(), "make tools") {
		t.Errorf("LookPath(wrk-xyz) = %v, want an error without make tools", err)
	}
}

// TestCombinedOutputKeepsOrder: one writer for both streams shares one pipe.
func TestCombinedOutputKeepsOrder(t *testing.T) {
	for range 20 {
		var out testutil.SyncBuffer
		p, err := Start(Spec{Path: "/bin/sh", Args: []string{"-c", "echo a; echo b >&2; echo c; echo d >&2"}, Stdout: &out, Stderr: &out})
		if err != nil {
			t.Fatal(err)
		}
		<-p.Wait()
		if out.String() != "a\nb\nc\nd\n" {
			t.Fatalf("combined output = %q", out.String())
		}
	}
}
