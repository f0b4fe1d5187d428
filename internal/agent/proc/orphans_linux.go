package proc

import (
	"os"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// KillGroupsIn sends SIGKILL to the process group of every process whose working directory is
// dir or below it, and returns those groups. It finds what a killed agent's jobs left running:
// the parent-death signal reaches a job's first process only, and its descendants share its group
// (unless they made their own). The caller's own group is never signalled.
func KillGroupsIn(dir string) []int {
	own := unix.Getpgrp()
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var groups []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cwd, err := os.Readlink("/proc/" + e.Name() + "/cwd")
		if err != nil || (cwd != dir && !strings.HasPrefix(cwd, dir+"/")) {
			continue
		}
		pgid, err := unix.Getpgid(pid)
		if err != nil || pgid <= 1 || pgid == own || slices.Contains(groups, pgid) {
			continue
		}
		signalGroup(pgid, sigKill)
		groups = append(groups, pgid)
	}
	return groups
}
