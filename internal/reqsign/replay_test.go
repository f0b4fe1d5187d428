package reqsign

import (
	"errors"
	"testing"
	"time"
)

// TestReplayCacheFullRefuses: a full cache refuses new nonces instead of forgetting old ones
// (whose requests could then be replayed), and takes them again once the old ones expire.
func TestReplayCacheFullRefuses(t *testing.T) {
	now := time.Unix(1_000_000, 0)
	c := NewReplayCache(2)
	for _, n := range []string{"a", "b"} {
		if err := c.Add(n, now.Add(time.Minute), now); err != nil {
			t.Fatalf("Add(%s): %v", n, err)
		}
	}
	if err := c.Add("a", now.Add(time.Minute), now); !errors.Is(err, ErrReplayed) {
		t.Errorf("Add(a) again: %v, want ErrReplayed", err)
	}
	if err := c.Add("c", now.Add(time.Minute), now); !errors.Is(err, ErrCacheFull) {
		t.Errorf("Add(c) to a full cache: %v, want ErrCacheFull", err)
	}
	if err := c.Add("a", now.Add(time.Minute), now); !errors.Is(err, ErrReplayed) {
		t.Errorf("Add(a) after the cache was full: %v, want ErrReplayed (not forgotten)", err)
	}
	later := now.Add(time.Minute)
	if err := c.Add("c", later.Add(time.Minute), later); err != nil {
		t.Errorf("Add(c) once a and b expired: %v", err)
	}
}

// TestParseRefusesMalformed: a header that is not a whole signature is refused, naming why.
func TestParseRefusesMalformed(t *testing.T) {
	hex64 := "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	for header, want := range map[string]error{
		"":                    ErrMissing,
		"Bearer x":            ErrMissing,
		Scheme + " t=1, n=00": ErrMalformed,
		Scheme + " t=x, n=0123456789abcdef0123456789abcdef, b=" + hex64 + ", s=" + hex64:      ErrMalformed,
		Scheme + " t=1, t=2, n=0123456789abcdef0123456789abcdef, b=" + hex64 + ", s=" + hex64: ErrMalformed,
	} {
		if _, err := Parse(header, "GET", "/jobs"); !errors.Is(err, want) {
			t.Errorf("Parse(%q): %v, want %v", header, err, want)
		}
	}
}
