package proc

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/testutil"
)

// TestKillGroupsIn kills a group found by its working directory, and only that one.
func TestKillGroupsIn(t *testing.T) {
	dir := t.TempDir()
	job, other := filepath.Join(dir, "job"), filepath.Join(dir, "jobber") // a prefix, not a parent
	for _, d := range []string{filepath.Join(job, "sub"), other} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	start := func(dir string) *Process {
		p, err := Start(Spec{Path: "/bin/sh", Args: []string{"-c", "(cd sub 2>/dev/null; sleep 300) & sleep 301; wait"}, Dir: dir})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { p.Stop(time.Second) })
		return p
	}
	victim, bystander := start(job), start(other)
	var groups []int
	testutil.Within(5*time.Second, func() bool { // the shell may not have started its children yet
		groups = KillGroupsIn(job)
		return len(groups) > 0
	})
	if !slices.Equal(groups, []int{victim.Pid()}) {
		t.Fatalf("groups %v, want [%d]", groups, victim.Pid())
	}
	select {
	case <-victim.Wait():
	case <-time.After(5 * time.Second):
		t.Fatal("the job's group still runs")
	}
	select {
	case <-bystander.Wait():
		t.Fatal("a process outside the folder was killed")
	default:
	}
}
