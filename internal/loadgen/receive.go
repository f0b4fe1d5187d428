package loadgen

// minFree is the free space below which the read buffer is compacted before the next read.
const minFree = 4 << 10

// received handles one read's result: n bytes appended at buf[w:], or err. It returns false when
// the connection must be closed.
func (w *worker) received(n int, err error, now int64) bool {
	switch {
	case err != nil:
		w.fail(&w.st.errors.Read, now)
		return false
	case n == 0:
		w.onEOF(now)
		return false
	}
	w.w += n
	w.lw.got += n
	w.reads++
	if w.recording(now) {
		w.st.bytes += int64(n)
	}
	w.consume(now)
	return !w.closing
}

// consume parses every whole response in the buffer.
func (w *worker) consume(now int64) {
	for w.r < w.w {
		if w.fl.len() == 0 {
			w.fail(&w.st.errors.Malformed, now) // bytes nobody asked for
			return
		}
		n, done, err := w.p.parse(w.buf[w.r:w.w])
		w.r += n
		if err != nil {
			w.fail(&w.st.errors.Malformed, now)
			return
		}
		if !done {
			break
		}
		w.complete(now)
		if w.closing {
			return
		}
	}
	switch {
	case w.r == w.w:
		w.r, w.w = 0, 0
	case len(w.buf)-w.w < minFree:
		w.w = copy(w.buf, w.buf[w.r:w.w])
		w.r = 0
	}
}

// complete counts the response the parser just finished.
func (w *worker) complete(now int64) {
	f := w.fl.pop()
	w.response(now, f.origin, w.p.status/100, false)
	if w.p.close {
		w.closing = true // the server closes after this response: not an error
	}
}

// onEOF handles the server closing the connection.
func (w *worker) onEOF(now int64) {
	done, err := w.p.eof(w.w - w.r)
	switch {
	case done && w.fl.len() > 0:
		w.complete(now)
	case err != nil:
		w.count(&w.st.errors.Malformed, now)
	case w.fl.len() > 0:
		w.count(&w.st.errors.Read, now) // closed with requests unanswered
	}
	w.closing = true
}
