// Package progress shows a run as it goes. On a terminal the step lines scroll and one status
// line under them is redrawn in place (phase, elapsed and remaining time, live requests/s, the
// services' CPU); elsewhere (CI logs, a pipe) every line is timestamped and the status is
// printed when its phase changes and then every PlainEvery. Quiet shows nothing.
package progress

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"sync"
	"time"

	"golang.org/x/term"

	"github.com/crankshaft/crankshaft/internal/results"
	"github.com/crankshaft/crankshaft/internal/termtext"
)

// Mode says how progress is shown.
type Mode int

// The modes.
const (
	Plain    Mode = iota // timestamped lines
	Terminal             // step lines and a live status line
	Quiet                // nothing
)

// PlainEvery is how often the status is repeated in Plain mode while its phase lasts.
const PlainEvery = 5 * time.Second

// ModeFor picks Terminal when w is a terminal, Plain otherwise; quiet wins.
func ModeFor(w io.Writer, quiet bool) Mode {
	if quiet {
		return Quiet
	}
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		return Terminal
	}
	return Plain
}

// DefaultWidth is the status line's width when the terminal's is unknown.
const DefaultWidth = 120

// widthOf returns the width of the terminal w is, or DefaultWidth.
func widthOf(w io.Writer) int {
	if f, ok := w.(*os.File); ok {
		if cols, _, err := term.GetSize(int(f.Fd())); err == nil && cols > 0 {
			return cols
		}
	}
	return DefaultWidth
}

// Status is the run's state at one moment.
type Status struct {
	Service string
	Phase   string // "building", "starting", "warm-up", "measuring", "stopping"...
	Elapsed time.Duration
	// Remaining is the time left in the phase, when known (0: unknown).
	Remaining time.Duration
	// RPS is the latest requests per second, NaN when no per-second source exists.
	RPS float64
	// CPU is each service's latest CPU (percent of its machine), in scenario order.
	CPU []ServiceValue
}

// ServiceValue is one service's figure.
type ServiceValue struct {
	Service string
	Value   float64
}

// String renders the status on one line.
func (s Status) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "[%s] %s %s", s.Service, s.Phase, s.Elapsed.Round(time.Second))
	if s.Remaining > 0 {
		fmt.Fprintf(&b, ", %s left", s.Remaining.Round(time.Second))
	}
	if !math.IsNaN(s.RPS) {
		fmt.Fprintf(&b, " | %s req/s", results.Format(s.RPS, "n0"))
	}
	if len(s.CPU) > 0 {
		b.WriteString(" | CPU")
		for _, c := range s.CPU {
			fmt.Fprintf(&b, " %s %s%%", c.Service, results.Format(c.Value, "n0"))
		}
	}
	return b.String()
}

// Printer writes progress to one writer. It is an io.Writer for step lines and takes Status
// updates; it is safe for concurrent use.
type Printer struct {
	mu   sync.Mutex
	w    io.Writer
	mode Mode
	now  func() time.Time

	partial   []byte // a step line not yet ended by a newline
	live      string // the status line on a terminal
	lastPhase string
	lastPlain time.Time
}

// New returns a Printer writing to w in mode. now may be nil (time.Now).
func New(w io.Writer, mode Mode, now func() time.Time) *Printer {
	if now == nil {
		now = time.Now
	}
	return &Printer{w: w, mode: mode, now: now}
}

// clearLine returns the cursor to the start of the line and erases it.
const clearLine = "\r\x1b[K"

// Write prints whole step lines.
func (p *Printer) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.mode == Quiet {
		return len(b), nil
	}
	p.partial = append(p.partial, b...)
	for {
		i := bytes.IndexByte(p.partial, '\n')
		if i < 0 {
			break
		}
		p.line(string(p.partial[:i]))
		p.partial = p.partial[i+1:]
	}
	return len(b), nil
}

// line prints one step line, cleaned (termtext.Clean): what every caller prints may hold an
// agent's or a job's text.
func (p *Printer) line(s string) {
	s = termtext.Clean(s)
	switch p.mode {
	case Terminal:
		fmt.Fprintf(p.w, "%s%s\n", clearLine, s)
		if p.live != "" {
			io.WriteString(p.w, p.live)
		}
	case Plain:
		fmt.Fprintf(p.w, "%s %s\n", p.now().UTC().Format("15:04:05"), s)
	}
}

// Show updates the status; the zero Status clears it.
func (p *Printer) Show(s Status) {
	if s.Service == "" {
		p.Clear()
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	text := s.String()
	switch p.mode {
	case Terminal:
		// A status wider than the terminal would wrap, and the next redraw could not erase it.
		if r := []rune(text); len(r) >= widthOf(p.w) {
			text = string(r[:max(widthOf(p.w)-1, 0)])
		}
		p.live = text
		io.WriteString(p.w, clearLine+text)
	case Plain:
		key := s.Service + " " + s.Phase
		now := p.now()
		if key != p.lastPhase || now.Sub(p.lastPlain) >= PlainEvery {
			p.lastPhase, p.lastPlain = key, now
			p.line(text)
		}
	}
}

// Clear removes the status line (before results are printed).
func (p *Printer) Clear() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.mode == Terminal && p.live != "" {
		io.WriteString(p.w, clearLine)
	}
	p.live, p.lastPhase = "", ""
}
