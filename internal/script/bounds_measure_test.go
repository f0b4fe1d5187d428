//go:build measure

package script

import "testing"

// TestLateInterruptCaseMade: TestLateInterruptStopsTheScript, failing (not skipping) when in
// lateTries tries the script stopped before the watcher read the heap late: whether the case is
// made depends on how fast this machine doubles the string against the watcher's ticks.
func TestLateInterruptCaseMade(t *testing.T) {
	if !lateInterruptTries(t) {
		t.Fatalf("in %d tries the script stopped before the watcher read the heap late: the case was never made", lateTries)
	}
}
