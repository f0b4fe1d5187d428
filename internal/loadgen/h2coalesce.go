package loadgen

import "sync/atomic"

// wakeGate spaces out the HTTP/2 clients' coalescing waits: it is shared by a run's clients.
// Servers write each stream's response on its own (nginx), so a connection with many streams in
// flight is woken for each one: a context switch, a read and the ACK that read sends, per
// response. So the closed loop waits briefly when a connection is woken, that the responses of
// every connection gather meanwhile; the clients woken with it then find theirs gathered too.
// One wait covers the process: the next may start only once as long again has passed.
type wakeGate struct {
	until atomic.Int64 // when the last wait ends (ns since the run's base)
}

// coalesceWait returns how long a connection woken for readable data waits before reading, or 0:
// in the closed loop with requests in flight, a twentieth of the latency of the connection's
// last response, 20 us to 200 us, unless another wait ended less than that long ago. The
// responses that arrive meanwhile are delayed by at most a twentieth of their latency.
func (c *h2client) coalesceWait(s *h2session, now int64) int64 {
	if c.cfg.rate > 0 || s.inflight == 0 || c.cfg.gate == nil {
		return 0
	}
	d := min(s.lastLatency/coalesceShare, maxCoalesce)
	if d < minCoalesce || now < c.cfg.gate.until.Load()+d {
		return 0
	}
	c.cfg.gate.until.Store(now + d)
	return d
}
