// Package undumpable makes the calling process non-dumpable: its memory and its /proc files (its
// environment, with the tokens it was given; its cwd, fd and maps) become unreadable by other
// processes of its user, such as the jobs crank-agent and crank's embedded agent run. A process
// running as root still can read them (docs/SECURITY.md). The flag is not inherited across exec,
// so the jobs themselves stay dumpable.
package undumpable

import "golang.org/x/sys/unix"

// Set makes this process non-dumpable.
func Set() error { return unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0) }
