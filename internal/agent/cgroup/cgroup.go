// Package cgroup contains a job in a control group of its own: every process it starts, however
// it detaches (setsid, double fork), stays in the group, so the group's CPU counts them all and
// Kill ends them all.
//
// A job's group is made in the cgroup v2 hierarchy (/sys/fs/cgroup on a pure v2 machine,
// /sys/fs/cgroup/unified on a hybrid one), under "crankshaft". The process starts inside it
// (clone3's CLONE_INTO_CGROUP, through Group.FD), so not even its first fork escapes. Limits go
// where a controller exists: v2's cpu, cpuset and memory when the parent delegates them, else the
// v1 hierarchies of a hybrid machine (cpu, cpuset, memory under /sys/fs/cgroup/<controller>),
// which the process joins right after it starts. A limit no hierarchy can honour is returned as a
// warning, never dropped silently.
package cgroup

import "fmt"

// Limits are a job's resource limits; zero values mean none.
type Limits struct {
	// CPUSet lists the CPUs the job may run on ("0-3,6").
	CPUSet string
	// MemoryBytes caps the job's memory.
	MemoryBytes uint64
	// CPURatio caps the job's CPU in cores (1.5: one and a half cores).
	CPURatio float64
}

// cfsPeriod is the CPU quota period, in microseconds (the kernel's and Docker's default).
const cfsPeriod = 100000

// quota is the CFS quota for a CPU ratio.
func quota(ratio float64) int64 { return int64(ratio * cfsPeriod) }

// String describes the limits for logs.
func (l Limits) String() string {
	return fmt.Sprintf("cpuSet=%q memoryLimitInBytes=%d cpuLimitRatio=%g", l.CPUSet, l.MemoryBytes, l.CPURatio)
}
