package agent

import (
	"context"
	"strings"
	"testing"

	"github.com/crankshaft/crankshaft/internal/agent/proc"
	"github.com/crankshaft/crankshaft/internal/api"
)

// TestJobCPUSet: a job's process runs on its cpuSet (the program reads its own allowed CPUs), and
// a cpuSet naming a CPU the agent does not have is refused when the job is submitted.
func TestJobCPUSet(t *testing.T) {
	ta := newTestAgent(t, Options{})
	all, err := proc.AllowedCPUs()
	if err != nil {
		t.Fatal(err)
	}
	last := api.FormatCPUSet(all[len(all)-1:])
	id := ta.submit(t, api.Job{Name: "pinned", Executable: "/bin/sh", CpuSet: last,
		Arguments: `-c "grep Cpus_allowed_list /proc/self/status; echo ready; exec sleep 30"`, ReadyStateText: "ready"})
	ta.waitState(t, id, api.StateRunning)
	if out := ta.waitOutput(t, id, "ready"); !strings.Contains(out, "Cpus_allowed_list:\t"+last+"\n") {
		t.Errorf("job with cpuSet %s printed %q", last, out)
	}
	_, err = ta.c.Submit(context.Background(), api.Job{Name: "far", Executable: "/bin/true", CpuSet: "0,4095"})
	if err == nil || !strings.Contains(err.Error(), `cpuSet "0,4095": CPU 4095 is not available to this agent`) {
		t.Errorf("cpuSet beyond the machine: %v", err)
	}
	if _, err = ta.c.Submit(context.Background(), api.Job{Name: "bad", Executable: "/bin/true", CpuSet: "1-0"}); err == nil || !strings.Contains(err.Error(), "backwards") {
		t.Errorf("backwards cpuSet: %v", err)
	}
}
