package httpserver

import (
	"context"
	"net/http"
	"sync/atomic"
	"time"
)

// dateClock holds the current "Date: ...\r\n" header line, refreshed once a second by a ticker so
// that responses copy it instead of formatting the time.
type dateClock struct {
	line atomic.Pointer[[]byte]
}

func newDateClock() *dateClock {
	d := &dateClock{}
	d.set(time.Now())
	return d
}

func (d *dateClock) set(t time.Time) {
	b := make([]byte, 0, 40)
	b = append(b, "Date: "...)
	b = t.UTC().AppendFormat(b, http.TimeFormat)
	b = append(b, "\r\n"...)
	d.line.Store(&b)
}

// get returns the current header line; callers must not modify it.
func (d *dateClock) get() []byte { return *d.line.Load() }

// run refreshes the line every second until ctx ends.
func (d *dateClock) run(ctx context.Context) {
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case t := <-tick.C:
			d.set(t)
		}
	}
}
