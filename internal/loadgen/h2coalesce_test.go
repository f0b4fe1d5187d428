package loadgen

import (
	"testing"
	"time"
)

func TestH2CoalesceWait(t *testing.T) {
	ms := int64(time.Millisecond)
	cases := []struct {
		name     string
		rate     int64
		inflight int
		latency  int64 // of the connection's last response
		want     int64
	}{
		{"a twentieth of the last latency", 0, 70, 2 * ms, 100_000},
		{"capped at 1 ms", 0, 70, 50 * ms, maxH2Coalesce},
		{"too fast to wait", 0, 70, ms / 10, 0},
		{"nothing in flight", 0, 0, 2 * ms, 0},
		{"rate mode", 1000, 70, 2 * ms, 0},
	}
	for _, c := range cases {
		cfg := &runConfig{rate: c.rate, gate: &wakeGate{}}
		cl := &h2client{recorder: recorder{cfg: cfg}}
		s := &h2session{inflight: c.inflight, lastLatency: c.latency}
		now := 10 * ms
		if got := cl.coalesceWait(s, now); got != c.want {
			t.Errorf("%s: wait %v, want %v", c.name, time.Duration(got), time.Duration(c.want))
		}
		if c.want == 0 {
			continue
		}
		// A connection woken while the thread handles others (one went back to waiting within
		// the last 20 us) reads at once; one woken after the thread sat idle waits.
		cfg.gate.parked(now - minCoalesce + 1)
		if got := cl.coalesceWait(s, now); got != 0 {
			t.Errorf("%s: waited %v while the thread was busy", c.name, time.Duration(got))
		}
		cfg.gate.parked(now - minCoalesce)
		if got := cl.coalesceWait(s, now); got != c.want {
			t.Errorf("%s: after an idle spell waited %v, want %v", c.name, time.Duration(got), time.Duration(c.want))
		}
	}
}
