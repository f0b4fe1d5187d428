package proc

import (
	"slices"
	"strings"
	"testing"

	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/testutil"
)

// TestCPUAffinityInherited: a process started with CPUs runs only there, and so does the process
// it starts (the shell's child reads its own /proc status); the next process started without CPUs
// has every CPU again, so the starting thread got its affinity back.
func TestCPUAffinityInherited(t *testing.T) {
	all, err := AllowedCPUs()
	if err != nil {
		t.Fatal(err)
	}
	last := all[len(all)-1]
	run := func(cpus []int) string {
		var out testutil.SyncBuffer
		p, err := Start(Spec{Path: "/bin/sh", Args: []string{"-c", "grep Cpus_allowed_list /proc/self/status; true"},
			Stdout: &out, CPUs: cpus})
		if err != nil {
			t.Fatal(err)
		}
		if e := p.Exit(); !e.Success() {
			t.Fatalf("exit %v: %s", e, out.String())
		}
		_, list, _ := strings.Cut(out.String(), ":")
		return strings.TrimSpace(list)
	}
	for range 5 { // the Go scheduler may hand the start to different threads
		if got := run([]int{last}); got != api.FormatCPUSet([]int{last}) {
			t.Fatalf("child of a process pinned to CPU %d may use %q", last, got)
		}
		if got := run(nil); got != api.FormatCPUSet(all) {
			t.Fatalf("unpinned process may use %q, want %q", got, api.FormatCPUSet(all))
		}
	}
	if !slices.Equal(mustAllowed(t), all) {
		t.Errorf("the agent's own affinity changed: %v, was %v", mustAllowed(t), all)
	}
}

func mustAllowed(t *testing.T) []int {
	cpus, err := AllowedCPUs()
	if err != nil {
		t.Fatal(err)
	}
	return cpus
}
