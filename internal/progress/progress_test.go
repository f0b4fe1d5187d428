package progress

import (
	"bytes"
	"math"
	"strings"
	"testing"
	"time"
)

func TestTerminalRedrawsTheStatusUnderTheLines(t *testing.T) {
	var b bytes.Buffer
	p := New(&b, Terminal, nil)
	p.Show(Status{Service: "load", Phase: "measuring", Elapsed: 3 * time.Second, Remaining: 12 * time.Second,
		RPS: 412345.4, CPU: []ServiceValue{{"application", 95}, {"load", 40.4}}})
	p.Write([]byte("[load] a step\n"))
	p.Clear()
	status := "[load] measuring 3s, 12s left | 412,345 req/s | CPU application 95% load 40%"
	want := clearLine + status + clearLine + "[load] a step\n" + status + clearLine
	if b.String() != want {
		t.Errorf("got  %q\nwant %q", b.String(), want)
	}
}

func TestPlainTimestampsLinesAndThrottlesTheStatus(t *testing.T) {
	var b bytes.Buffer
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	p := New(&b, Plain, func() time.Time { return now })
	st := Status{Service: "application", Phase: "building", Elapsed: time.Second, RPS: math.NaN()}
	p.Show(st)
	now = now.Add(time.Second)
	st.Elapsed = 2 * time.Second
	p.Show(st) // same phase within PlainEvery: not repeated
	now = now.Add(PlainEvery)
	st.Elapsed = 7 * time.Second
	p.Show(st)
	p.Write([]byte("[application] ready\n[load] started"))
	want := "03:04:05 [application] building 1s\n03:04:11 [application] building 7s\n03:04:11 [application] ready\n"
	if b.String() != want {
		t.Errorf("got  %q\nwant %q", b.String(), want)
	}
	if strings.Contains(b.String(), "\x1b") {
		t.Error("escape codes in plain mode")
	}
}

func TestQuietShowsNothing(t *testing.T) {
	var b bytes.Buffer
	p := New(&b, Quiet, nil)
	p.Write([]byte("[load] a step\n"))
	p.Show(Status{Service: "load", Phase: "measuring", RPS: 1})
	p.Clear()
	if b.Len() != 0 {
		t.Errorf("quiet wrote %q", b.String())
	}
	if ModeFor(&b, false) != Plain || ModeFor(&b, true) != Quiet {
		t.Error("a buffer is not a terminal")
	}
}

func TestTerminalStatusFitsOnOneLine(t *testing.T) {
	var b bytes.Buffer
	p := New(&b, Terminal, nil)
	p.Show(Status{Service: strings.Repeat("s", 300), Phase: "building", RPS: math.NaN()})
	if got := len([]rune(strings.TrimPrefix(b.String(), clearLine))); got != DefaultWidth-1 {
		t.Errorf("status of %d characters, want %d", got, DefaultWidth-1)
	}
}

// TestStepLinesAreCleaned: a step line holding a job's escape sequences (a screen clear, OSC 52)
// is printed with them escaped, on a terminal and elsewhere (issue 41, LOW).
func TestStepLinesAreCleaned(t *testing.T) {
	for _, mode := range []Mode{Terminal, Plain} {
		var b bytes.Buffer
		p := New(&b, mode, func() time.Time { return time.Unix(0, 0) })
		p.Write([]byte("[load] \x1b[2J\x1b]52;c;aWQK\x07 naïve\n"))
		if got := strings.TrimPrefix(b.String(), clearLine); strings.ContainsAny(got, "\x1b\x07") || !strings.Contains(got, `[load] \x1b[2J\x1b]52;c;aWQK\x07 naïve`) {
			t.Errorf("mode %v printed %q", mode, b.String())
		}
	}
}
