package main

import (
	"testing"
	"time"
)

// TestSyscallCost: a system call's price is measured (positive, under a millisecond on any host
// the bench runs on) and said in microseconds, "unknown" when not measured.
func TestSyscallCost(t *testing.T) {
	d := syscallCost()
	t.Logf("a system call costs %v here", d)
	if d <= 0 || d > time.Millisecond {
		t.Errorf("syscallCost() = %v, want above 0 and under 1 ms", d)
	}
	if got := syscallText(168 * time.Nanosecond); got != "0.17 us" {
		t.Errorf("syscallText(168ns) = %q, want 0.17 us", got)
	}
	if got := syscallText(0); got != "unknown" {
		t.Errorf("syscallText(0) = %q, want unknown", got)
	}
}
