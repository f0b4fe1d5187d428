package loadgen

import "errors"

// lowWater wakes a pipelined closed-loop connection once per batch. Servers that write each
// pipelined response on its own (nginx) deliver a batch in a trickle of segments; a connection
// woken for the first of them reads part of the batch and must wait or be woken again for the
// rest. Once two batches in a row brought the same number of bytes, the socket's SO_RCVLOWAT is
// set to that number: the kernel then signals it readable when the whole next batch is in (or it
// closed, or failed), and one wake-up, one read and one write serve the batch. A batch that brings
// fewer bytes than the mark is read when the probe deadline passes; the mark is then dropped for
// good on that worker.
type lowWater struct {
	got  int  // bytes received for the batch in flight
	prev int  // bytes of the previous whole batch
	mark int  // the socket's SO_RCVLOWAT, when set (> 1)
	off  bool // not used on this worker: it stalled once, or the connection cannot take it
}

var errNoLowWater = errors.New("SO_RCVLOWAT needs a raw TCP connection")

// batchDone sizes the mark for the next batch once the last one is whole (closed loop).
func (w *worker) batchDone() {
	lw := &w.lw
	got := lw.got
	lw.got = 0
	if w.cfg.rate > 0 || w.cfg.depth == 1 || lw.off {
		return
	}
	if got > 1 && got == lw.prev && got != lw.mark {
		if w.sys.setLowWater(got) != nil {
			lw.off = true
			return
		}
		lw.mark = got
	}
	lw.prev = got
}

// lowWaterStalled drops the mark after a wait ended by its deadline with requests in flight: the
// batch may be smaller than the mark, and a server that slow gains nothing from it anyway.
func (w *worker) lowWaterStalled() {
	if w.lw.mark > 1 && w.fl.len() > 0 {
		w.lw.off = true
		w.lw.mark = 0
		w.sys.setLowWater(1) // the default; the connection is read at once anyway
	}
}
