package controller

import (
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/testutil"
)

// TestFarClockWarned: an agent whose clock is 73 years off was accepted silently; now crank warns,
// naming the agent and the offset.
func TestFarClockWarned(t *testing.T) {
	skew := 73 * 365 * 24 * time.Hour
	url := startAgent(t, skew, nil)
	var logs testutil.SyncBuffer
	c := New(Options{Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelWarn}))})
	ag, err := c.client(t.Context(), url, "")
	if err != nil {
		t.Fatal(err)
	}
	if off := ag.offset - skew; off.Abs() > time.Second {
		t.Errorf("offset %s, want about %s", ag.offset, skew)
	}
	for _, want := range []string{"level=WARN", "agent clock far from this machine's", "agent=" + url, "offset=" + ag.offset.String()} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("logs lack %q:\n%s", want, logs.String())
		}
	}
}
