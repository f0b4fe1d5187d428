package api

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// MaxCPU bounds the CPU numbers a cpuSet may name.
const MaxCPU = 4096

// ParseCPUSet reads a cpuSet in the kernel's list format ("0", "0-3", "0-3,8,10-11", as taskset -c
// and cgroup cpuset.cpus write it) and returns its CPU numbers, sorted and without repeats. An
// empty string is no set (nil).
func ParseCPUSet(s string) ([]int, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, nil
	}
	var cpus []int
	for part := range strings.SplitSeq(s, ",") {
		lo, hi, isRange := strings.Cut(strings.TrimSpace(part), "-")
		a, errA := strconv.Atoi(strings.TrimSpace(lo))
		b, errB := a, error(nil)
		if isRange {
			b, errB = strconv.Atoi(strings.TrimSpace(hi))
		}
		switch {
		case errA != nil || errB != nil || a < 0:
			return nil, fmt.Errorf("cpuSet %q: %q is not a CPU number or range (write 0-3,8)", s, part)
		case b < a:
			return nil, fmt.Errorf("cpuSet %q: range %q is backwards", s, part)
		case b >= MaxCPU:
			return nil, fmt.Errorf("cpuSet %q: CPU %d is beyond %d", s, b, MaxCPU-1)
		}
		for c := a; c <= b; c++ {
			cpus = append(cpus, c)
		}
	}
	slices.Sort(cpus)
	return slices.Compact(cpus), nil
}

// FormatCPUSet writes CPU numbers (sorted) in the list format: [0 1 2 5] is "0-2,5".
func FormatCPUSet(cpus []int) string {
	var b strings.Builder
	for i := 0; i < len(cpus); {
		j := i
		for j+1 < len(cpus) && cpus[j+1] == cpus[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(cpus[i]))
		if j > i {
			b.WriteString("-" + strconv.Itoa(cpus[j]))
		}
		i = j + 1
	}
	return b.String()
}
