package reqsign

import (
	"container/heap"
	"errors"
	"fmt"
	"sync"
	"time"
)

// DefaultReplayCapacity bounds the nonces a ReplayCache holds: crank polls each job a few times
// a second, so a 10-minute span of nonces is a few thousand a job.
const DefaultReplayCapacity = 1 << 18

// ErrCacheFull: the cache holds Capacity nonces still within their window; the request is refused
// rather than a nonce forgotten early (which would let its request be replayed).
var ErrCacheFull = errors.New("too many signed requests within the window: refused (the replay cache is full)")

// ReplayCache remembers the nonces of requests still within the time window, each until its
// request's time leaves the window.
type ReplayCache struct {
	mu       sync.Mutex
	capacity int
	seen     map[string]time.Time
	expiries expiryHeap
}

// NewReplayCache holds at most capacity nonces (DefaultReplayCapacity when <= 0).
func NewReplayCache(capacity int) *ReplayCache {
	if capacity <= 0 {
		capacity = DefaultReplayCapacity
	}
	return &ReplayCache{capacity: capacity, seen: map[string]time.Time{}}
}

// Add records nonce until expires (included); it refuses a nonce already held (ErrReplayed) and, when the
// cache is full of unexpired nonces, any new one (ErrCacheFull).
func (c *ReplayCache) Add(nonce string, expires, now time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	// A nonce is held through its expiry itself: Verify accepts a request whose time is exactly
	// the window away.
	for len(c.expiries) > 0 && c.expiries[0].at.Before(now) {
		e := heap.Pop(&c.expiries).(expiry)
		delete(c.seen, e.nonce)
	}
	if _, ok := c.seen[nonce]; ok {
		return ErrReplayed
	}
	if len(c.seen) >= c.capacity {
		return fmt.Errorf("%w: %d nonces", ErrCacheFull, c.capacity)
	}
	c.seen[nonce] = expires
	heap.Push(&c.expiries, expiry{at: expires, nonce: nonce})
	return nil
}

type expiry struct {
	at    time.Time
	nonce string
}

// expiryHeap is a min-heap of expiries (container/heap).
type expiryHeap []expiry

func (h expiryHeap) Len() int           { return len(h) }
func (h expiryHeap) Less(i, j int) bool { return h[i].at.Before(h[j].at) }
func (h expiryHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *expiryHeap) Push(x any)        { *h = append(*h, x.(expiry)) }
func (h *expiryHeap) Pop() any {
	old := *h
	e := old[len(old)-1]
	*h = old[:len(old)-1]
	return e
}
