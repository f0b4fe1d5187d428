// Package dispatch hands work from connection goroutines to a pool of worker goroutines, in one
// of the modes of .NET's thread pool: a single lock-guarded global queue ("shared") or one queue
// per partition with work stealing ("partitioned"). "inline" runs work on the caller's goroutine.
//
// The queues are deliberately lock-based (sync.Mutex + sync.Cond) so that contention on the
// shared queue shows up in the Go runtime's /sync/mutex/wait/total:seconds metric.
package dispatch

import (
	"fmt"
	"runtime"
)

// Task is one unit of work. A Task must not be submitted again before its Run has started.
type Task interface {
	Run()
}

// Pool runs submitted tasks on worker goroutines.
type Pool interface {
	// Submit queues t; key selects the partition where the mode has partitions.
	Submit(key uint64, t Task)
	// Len returns the number of queued tasks not yet started.
	Len() int
	// Close lets the workers finish the queued tasks, then stops them and waits for them.
	Close()
}

// Mode is how requests are dispatched.
type Mode string

// The modes.
const (
	Inline      Mode = "inline"
	Shared      Mode = "shared"
	Partitioned Mode = "partitioned"
)

// ParseMode validates a mode name.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(s); m {
	case Inline, Shared, Partitioned:
		return m, nil
	}
	return "", fmt.Errorf("dispatch mode %q: want inline, shared or partitioned", s)
}

// Options configure New. Zero values take the defaults (GOMAXPROCS partitions, one worker per
// partition for "partitioned", GOMAXPROCS workers for "shared").
type Options struct {
	Mode       Mode
	Partitions int
	Workers    int
}

// New starts the workers for the mode. It returns a nil Pool for Inline.
func New(o Options) (Pool, error) {
	procs := runtime.GOMAXPROCS(0)
	if o.Partitions < 0 || o.Workers < 0 {
		return nil, fmt.Errorf("dispatch: partitions %d and workers %d must not be negative", o.Partitions, o.Workers)
	}
	if o.Partitions == 0 {
		o.Partitions = procs
	}
	switch o.Mode {
	case Inline, "":
		return nil, nil
	case Shared:
		if o.Workers == 0 {
			o.Workers = procs
		}
		return NewShared(o.Workers), nil
	case Partitioned:
		if o.Workers == 0 {
			o.Workers = o.Partitions
		}
		return NewPartitioned(o.Partitions, o.Workers), nil
	}
	return nil, fmt.Errorf("dispatch: unknown mode %q", o.Mode)
}
