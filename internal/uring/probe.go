//go:build linux

package uring

import (
	"errors"
	"fmt"
	"runtime"

	"golang.org/x/sys/unix"
)

// Flags is the setup the load generator asks: one thread submits, and completions are posted
// when it enters the kernel to wait for them (no interrupts of its work to post them).
const Flags = SetupSingleIssuer | SetupDeferTaskrun | SetupSubmitAll

// Probe sets up a ring as the generator does and registers a buffer ring, then frees both. It
// returns nil when the kernel allows it, else an error that says why: ENOSYS (no io_uring in
// this kernel), EPERM (forbidden: sysctl kernel.io_uring_disabled, or a seccomp filter), EINVAL
// (a kernel too old for the flags or buffer rings).
func Probe() error {
	// A single-issuer ring accepts calls only from the thread that set it up (else EEXIST).
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	r, err := New(8, 0, Flags)
	if err != nil {
		return explain(err)
	}
	defer r.Close()
	b, err := NewBufRing(r, 0, 8, 64)
	if err != nil {
		return explain(err)
	}
	return b.Close()
}

func explain(err error) error {
	var why string
	switch {
	case errors.Is(err, unix.ENOSYS):
		why = "this kernel has no io_uring"
	case errors.Is(err, unix.EPERM), errors.Is(err, unix.EACCES):
		why = "io_uring is forbidden here (sysctl kernel.io_uring_disabled, or a seccomp filter)"
	case errors.Is(err, unix.EINVAL):
		why = "this kernel lacks a feature used (single issuer, deferred task work, or buffer rings: Linux 6.1 or later)"
	default:
		why = "io_uring did not start"
	}
	return fmt.Errorf("%s: %w", why, err)
}
