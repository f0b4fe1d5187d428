package reqsign

import (
	"errors"
	"net/http"
	"sync/atomic"
	"testing"
	"time"
)

// TestClockSteppedBackStillAccepted: the agent refuses requests signed before it started, but
// a wall clock that NTP steps back an hour after the start does not make it refuse the requests
// signed on the new clock; one signed before the start still is.
func TestClockSteppedBackStillAccepted(t *testing.T) {
	var step atomic.Int64
	clock := func() time.Time { return time.Now().Add(time.Duration(step.Load())) }
	v := NewVerifier("tok", 0, clock, nil)
	step.Store(int64(-time.Hour))
	req, _ := http.NewRequest(http.MethodGet, "http://agent/jobs", nil)
	Sign(req, "tok", clock(), nil)
	if err := v.Check(req, false, 1<<20); err != nil {
		t.Errorf("a request on the stepped-back clock: %v", err)
	}
	req, _ = http.NewRequest(http.MethodGet, "http://agent/jobs", nil)
	Sign(req, "tok", clock().Add(-time.Minute), nil)
	if err := v.Check(req, false, 1<<20); !errors.Is(err, ErrTime) {
		t.Errorf("a request signed before the start: %v, want ErrTime", err)
	}
}
