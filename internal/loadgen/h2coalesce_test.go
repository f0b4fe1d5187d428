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
		{"capped at 200us", 0, 70, 50 * ms, maxCoalesce},
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
		// Another connection woken within the wait's length again does not wait; one woken later does.
		other := &h2session{inflight: 70, lastLatency: c.latency}
		if got := cl.coalesceWait(other, now+2*c.want-1); got != 0 {
			t.Errorf("%s: a second wait %v within the first's span", c.name, time.Duration(got))
		}
		if got := cl.coalesceWait(other, now+2*c.want); got != c.want {
			t.Errorf("%s: a later wait %v, want %v", c.name, time.Duration(got), time.Duration(c.want))
		}
	}
}
