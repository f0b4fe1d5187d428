package loadgen

import (
	"testing"
	"time"
)

func TestCoalesceWait(t *testing.T) {
	ms := int64(time.Millisecond)
	cases := []struct {
		name      string
		rate      int64
		depth     int
		inFlight  int
		elapsed   int64 // since the batch was written
		woken     bool
		trickled  bool
		want, tol int64
	}{
		{"partial batch waits a twentieth", 0, 16, 10, 2 * ms, false, false, 100_000, 5_000},
		{"capped at 200us", 0, 16, 10, 50 * ms, false, false, maxCoalesce, 0},
		{"too young to wait", 0, 16, 10, ms / 10, false, false, 0, 0},
		{"nothing answered yet", 0, 16, 16, 2 * ms, false, false, 0, 0},
		{"woken after a trickled batch", 0, 16, 16, 2 * ms, true, true, 100_000, 5_000},
		{"woken after a whole batch", 0, 16, 16, 2 * ms, true, false, 0, 0},
		{"unpipelined", 0, 1, 1, 2 * ms, true, true, 0, 0},
		{"rate mode", 1000, 16, 10, 2 * ms, false, false, 0, 0},
	}
	for _, c := range cases {
		cfg := &runConfig{depth: c.depth, rate: c.rate, base: time.Now().Add(-time.Second)}
		w := &worker{recorder: recorder{cfg: cfg}, fl: newFlights(c.depth), trickled: c.trickled}
		sent := w.now() - c.elapsed
		for range c.inFlight {
			w.fl.push(flight{origin: sent, sent: sent})
		}
		got := w.coalesceWait(c.woken)
		// The clock ran on between sent and the call (109.6 µs for a 100 µs wait once, under the race
		// detector on a busy machine): the batch was that much older, so the wait may be longer.
		slip := (w.now() - sent - c.elapsed) / coalesceShare
		if got < c.want-c.tol || got > c.want+c.tol+slip {
			t.Errorf("%s: wait %v, want %v (+%v for the clock's slip)", c.name, time.Duration(got), time.Duration(c.want), time.Duration(slip))
		}
		if again := w.coalesceWait(c.woken); got > 0 && again != 0 {
			t.Errorf("%s: waited twice for one batch", c.name)
		}
	}
}
