//go:build measure

package loadgen

import (
	"testing"
	"time"
)

// TestWarmupWindowStartsOnTime: TestWarmupIsNotRecorded's window starting within 100 ms of the
// warm-up's end (the gate allows a second warm-up's length): how late the generator's timer wakes.
func TestWarmupWindowStartsOnTime(t *testing.T) {
	if off := warmupRun(t, IOAuto); off > warmupTime+100*time.Millisecond {
		t.Errorf("window starts %s after Run, want the %s warm-up and at most 100 ms", off, warmupTime)
	}
}

// TestStartAtOnTime: TestStartAtHistogramAndLatencyLog's window beginning within 250 ms of the
// start asked (the gate allows startAhead): the timer's wake-up on a busy machine (74 ms on CI's
// runner under -race), well short of the 400 ms the run would begin early if the start were
// ignored.
func TestStartAtOnTime(t *testing.T) {
	if d := startAtRun(t); d > 250*time.Millisecond {
		t.Errorf("window began %s after the start asked, want 0..250ms", d)
	}
}
