//go:build measure

package agent

import "testing"

// TestDaemonCPUShare: TestDaemonCountedAndKilledOnStop's daemon, burning half a core, counted at
// 12-80 % of a core (the gate checks more than 5 %): the job's process sleeps, so counted from the
// process tree the job would use ~0 % (the daemon is not in it); a busy machine may give the
// daemon less.
func TestDaemonCPUShare(t *testing.T) {
	if mean := daemonCPU(t); mean < 12 || mean > 80 {
		t.Errorf("job CPU %.1f%% of a core, want the daemon's ~50%%", mean)
	}
}
