package main

import (
	"fmt"
	"runtime"
	"time"

	"golang.org/x/sys/unix"
)

// The price of a kernel entry moves the ratio of crank load against wrk: wrk makes about 4 system
// calls a request, crank load on io_uring under 1, and both pay the same socket work (bench/notes.md).
// On this project's VM one getppid cost 1.0-1.2 us on one day and 0.17 us on another, and the
// unpipelined ratio moved from 0.60-0.82x to 0.93-0.95x with it, so the report says what it was.
const (
	syscallBatches = 5
	syscallCalls   = 100_000
)

// syscallCost is the time of one getppid system call: the fastest of syscallBatches batches of
// syscallCalls raw calls (the fastest, as a preempted batch only runs slower), on the calling
// goroutine's own thread.
func syscallCost() time.Duration {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	best := time.Duration(1<<63 - 1)
	for range syscallBatches {
		start := time.Now()
		for range syscallCalls {
			unix.RawSyscall(unix.SYS_GETPPID, 0, 0, 0)
		}
		best = min(best, time.Since(start)/syscallCalls)
	}
	return best
}

// syscallText is a system call's price for the report ("0.17 us").
func syscallText(d time.Duration) string {
	if d <= 0 {
		return "unknown"
	}
	return fmt.Sprintf("%.2f us", float64(d.Nanoseconds())/1000)
}
