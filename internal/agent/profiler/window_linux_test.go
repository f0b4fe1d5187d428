package profiler

import (
	"testing"
	"time"

	"github.com/google/pprof/profile"
)

// A perf profile's window runs from its first sample (perf begins recording a while after it is
// started) to perf's stop; a first sample not on the agent's clock leaves perf's start.
func TestPerfWindow(t *testing.T) {
	started := time.Unix(1_800_000_000, 0)
	stopped := started.Add(2 * time.Second)
	p := &profile.Profile{TimeNanos: started.Add(300 * time.Millisecond).UnixNano(), DurationNanos: int64(time.Second)}
	window(p, started, stopped)
	if p.TimeNanos != started.Add(300*time.Millisecond).UnixNano() || p.DurationNanos != int64(1700*time.Millisecond) {
		t.Fatalf("window %d for %d, want the first sample to the stop (1.7 s)", p.TimeNanos, p.DurationNanos)
	}
	q := &profile.Profile{TimeNanos: 4010128099000, DurationNanos: int64(time.Second)} // perf's own clock
	window(q, started, stopped)
	if q.TimeNanos != started.UnixNano() || q.DurationNanos != int64(2*time.Second) {
		t.Fatalf("window %d for %d, want perf's start to its stop (2 s)", q.TimeNanos, q.DurationNanos)
	}
}
