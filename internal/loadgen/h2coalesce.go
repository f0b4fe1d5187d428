package loadgen

import "sync/atomic"

// maxH2Coalesce bounds the HTTP/2 gathering wait. With 70 streams in flight a response takes
// milliseconds, so the twentieth of it that the wait may add is larger than HTTP/1.1's bound.
const maxH2Coalesce = int64(1e6) // 1 ms

// wakeGate tells the HTTP/2 clients of a run whether their thread was idle: it is shared by
// them. Servers write each stream's response on its own (nginx), so a connection with many
// streams in flight is woken for nearly each one: a context switch, a read and the ACK that read
// sends, per response. So in the closed loop a connection woken after the thread sat idle first
// waits, and the responses of every connection gather meanwhile; the connections woken with it,
// handled right after, find theirs gathered and do not wait.
type wakeGate struct {
	idle atomic.Int64 // when a connection last went back to waiting (ns since the run's base)
}

// parked notes that a connection has read all it had and waits for the socket again.
func (g *wakeGate) parked(now int64) { g.idle.Store(now) }

// coalesceWait returns how long a connection woken for readable data waits before reading, or 0:
// in the closed loop with requests in flight, when no connection went back to waiting in the
// last 20 us (the thread was idle, not handling a batch of wake-ups), a twentieth of the latency
// of the connection's last response, 20 us to 1 ms. The responses that arrive meanwhile are
// delayed by at most a twentieth of their latency.
func (c *h2client) coalesceWait(s *h2session, now int64) int64 {
	if c.cfg.rate > 0 || s.inflight == 0 || c.cfg.gate == nil {
		return 0
	}
	d := min(s.lastLatency/coalesceShare, maxH2Coalesce)
	if d < minCoalesce || now-c.cfg.gate.idle.Load() < minCoalesce {
		return 0
	}
	return d
}
