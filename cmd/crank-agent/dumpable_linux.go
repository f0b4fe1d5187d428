package main

import "golang.org/x/sys/unix"

// undumpable makes the agent's memory and /proc files (its environment, with the token it was
// given) unreadable by its jobs, which run as its own user: they could otherwise read the token
// from /proc/$PPID/environ. A job running as root still can (docs/SECURITY.md).
func undumpable() error { return unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0) }
