package controller

import (
	"testing"
	"time"

	"github.com/google/pprof/profile"
)

// A profile's window is on its agent's clock: an agent an hour ahead of crank whose profile
// covers the second half of the loads' 10 s run (on crank's clock) covers half of it.
func TestProfileCoverageOnTheAgentsClock(t *testing.T) {
	from := time.Unix(1_800_000_000, 0)
	to := from.Add(10 * time.Second)
	ahead := time.Hour
	p := &profile.Profile{TimeNanos: from.Add(ahead + 5*time.Second).UnixNano(), DurationNanos: int64(6 * time.Second)}
	if got := coverage(p, from, to, ahead); got != 0.5 {
		t.Errorf("coverage %v, want 0.5", got)
	}
	if got := coverage(p, from, to, 0); got != 0 {
		t.Errorf("on crank's clock uncorrected: coverage %v, want 0 (outside the run)", got)
	}
}
