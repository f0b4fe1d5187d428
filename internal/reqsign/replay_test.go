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
	later := now.Add(time.Minute + time.Nanosecond)
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

// TestNonceHeldThroughItsExpiry: Verify accepts a request whose time is exactly the window from
// the agent's clock, and the cache's expiry of its nonce is that very instant: the cache forgot
// the nonce at it (expiry <= now), so the request replayed at that instant was accepted again.
func TestNonceHeldThroughItsExpiry(t *testing.T) {
	signed := time.UnixMilli(1_000_000_000)
	key := Key("tok")
	auth, _ := Authorization(key, "POST", "/jobs/1/start", signed, BodyDigest(nil))
	s, err := Parse(auth, "POST", "/jobs/1/start")
	if err != nil {
		t.Fatal(err)
	}
	c := NewReplayCache(0)
	if err := c.Add(s.Nonce, s.Time.Add(DefaultWindow), signed); err != nil {
		t.Fatalf("first Add: %v", err)
	}
	edge := signed.Add(DefaultWindow)
	if err := s.Verify(key, edge, DefaultWindow); err != nil {
		t.Fatalf("Verify at the window's edge: %v, want accepted (so the nonce must still be held)", err)
	}
	if err := c.Add(s.Nonce, s.Time.Add(DefaultWindow), edge); !errors.Is(err, ErrReplayed) {
		t.Errorf("the request replayed at the window's edge: Add = %v, want ErrReplayed", err)
	}
	if err := s.Verify(key, edge.Add(time.Nanosecond), DefaultWindow); !errors.Is(err, ErrTime) {
		t.Errorf("Verify past the edge: %v, want ErrTime", err)
	}
}
