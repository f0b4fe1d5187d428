//go:build linux

package cgroup

import (
	"os"
	"path/filepath"
	"testing"
)

// A process job without a memory limit has no memory group of its own: it sits in the agent's
// (here the test's) memory group, whose usage is everything that session holds. Its working set must
// not be read from there (it once reported the agent's 726 MB for a 14 MB app).
func TestWorkingSetNotTheAgentsGroup(t *testing.T) {
	lines, err := procCgroups(os.Getpid())
	if err != nil {
		t.Fatalf("reading /proc/self/cgroup: %v", err)
	}
	if _, ok := WorkingSet(os.Getpid(), filepath.Join(Root, "unified", "crankshaft", "job-not-mine")); ok {
		t.Fatalf("working set read from a memory group that is not the job's (%+v)", lines)
	}
	// The job's own group is read where it has a memory controller.
	for _, l := range lines {
		if !l.v2() && !l.has("memory") {
			continue
		}
		if _, ok := WorkingSet(os.Getpid(), l.path); ok {
			return
		}
	}
	t.Logf("no memory controller for this process's groups (%+v): only the refusal was checked", lines)
}
