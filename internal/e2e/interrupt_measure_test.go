//go:build measure

package e2e

import "testing"

// TestInterruptKeepsLoadFiguresRatio: TestInterruptKeepsLoadFigures's run, with the load's
// requests/s held within 15 % of the application's own per-second counter over the same window
// (the gate allows a factor of 2). The application's counter is sampled every 0.25 s, and a
// sample whose interval reaches back before the load began (with no warm-up, the idle server) or
// past its end does not count. Sampled once a second, one or two samples covered half the load's
// 2 s and the two differed by up to 7 % here and 15 % once in CI (0.91-1.07x in 30 runs); every
// 0.25 s they cover most of it (0.98-1.04x in 36 runs, within 2 % in 34).
func TestInterruptKeepsLoadFiguresRatio(t *testing.T) {
	interruptedRuns(t, 0.85, 1.15)
}
