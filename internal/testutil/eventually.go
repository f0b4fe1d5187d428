package testutil

import (
	"testing"
	"time"
)

// Eventually checks cond every tick (10 ms at first, doubling to 200 ms) until it holds, and
// fails the test, saying what was awaited, when within has passed without it holding. It is for
// waiting on another process or goroutine whose progress the test cannot be told of directly;
// cond is called at least once, and once more at the deadline.
func Eventually(t testing.TB, within time.Duration, what string, cond func() bool) {
	t.Helper()
	if !Within(within, cond) {
		t.Fatalf("not within %s: %s", within, what)
	}
}

// Within is Eventually's wait without the test: whether cond held within the duration.
func Within(within time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(within)
	tick := 10 * time.Millisecond
	for {
		if cond() {
			return true
		}
		left := time.Until(deadline)
		if left <= 0 {
			return false
		}
		time.Sleep(min(tick, left))
		tick = min(2*tick, 200*time.Millisecond)
	}
}
