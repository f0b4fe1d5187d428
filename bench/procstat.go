package main

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
)

// ticksPerSecond is USER_HZ, the unit of the times in /proc/<pid>/stat: 100 on every Linux
// architecture Go supports (it is part of the kernel's ABI, unlike the internal HZ).
const ticksPerSecond = 100

// procStat is what the bench reads from one /proc/<pid>/stat line.
type procStat struct {
	PID, PPID int
	Comm      string
	State     byte
	// UTime and STime are the user and system CPU of the whole process (every thread, live or
	// exited), in ticks.
	UTime, STime uint64
}

// Ticks is the process's user + system CPU in ticks.
func (s procStat) Ticks() uint64 { return s.UTime + s.STime }

// CPU is the process's CPU split into user and system time.
func (s procStat) CPU() cpuTicks { return cpuTicks{User: s.UTime, System: s.STime} }

// cpuTicks is CPU time in ticks, split as /proc/<pid>/stat splits it: user time (utime) and system
// time (stime: the kernel working in the process's context, the softirqs it runs there included).
type cpuTicks struct{ User, System uint64 }

// Total is user + system: the figure CPU per request is computed from.
func (t cpuTicks) Total() uint64 { return t.User + t.System }

// Since is the CPU used from before to t, each part on its own. The parts wrap as the total does
// (unsigned), so Total of the difference is t.Total() - before.Total() exactly.
func (t cpuTicks) Since(before cpuTicks) cpuTicks {
	return cpuTicks{User: t.User - before.User, System: t.System - before.System}
}

// SystemPercent is system time over user + system, in percent; NaN when no tick was counted.
func (t cpuTicks) SystemPercent() float64 {
	if t.Total() == 0 {
		return math.NaN()
	}
	return float64(t.System) / float64(t.Total()) * 100
}

// parseStat parses one /proc/<pid>/stat line. The command name is in parentheses and may hold
// spaces and parentheses itself, so the fields are counted from the last ')'.
func parseStat(line []byte) (procStat, error) {
	open, closing := bytes.IndexByte(line, '('), bytes.LastIndexByte(line, ')')
	if open < 1 || closing < open {
		return procStat{}, fmt.Errorf("stat line %.40q: no (comm)", line)
	}
	pid, err := strconv.Atoi(string(bytes.TrimSpace(line[:open])))
	if err != nil {
		return procStat{}, fmt.Errorf("stat line %.40q: pid: %w", line, err)
	}
	// Fields after the comm, numbered from 3 as in proc(5): 3 state, 4 ppid, 14 utime, 15 stime.
	rest := bytes.Fields(line[closing+1:])
	if len(rest) < 13 || len(rest[0]) != 1 {
		return procStat{}, fmt.Errorf("stat line %.40q: %d fields after comm, want at least 13", line, len(rest))
	}
	s := procStat{PID: pid, Comm: string(line[open+1 : closing]), State: rest[0][0]}
	if s.PPID, err = strconv.Atoi(string(rest[1])); err != nil {
		return procStat{}, fmt.Errorf("stat of %d: ppid: %w", pid, err)
	}
	if s.UTime, err = strconv.ParseUint(string(rest[11]), 10, 64); err != nil {
		return procStat{}, fmt.Errorf("stat of %d: utime: %w", pid, err)
	}
	if s.STime, err = strconv.ParseUint(string(rest[12]), 10, 64); err != nil {
		return procStat{}, fmt.Errorf("stat of %d: stime: %w", pid, err)
	}
	return s, nil
}

// readStat reads /proc/<pid>/stat.
func readStat(pid int) (procStat, error) {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return procStat{}, fmt.Errorf("process %d: %w", pid, err)
	}
	return parseStat(b)
}

// treeTicks is the CPU, in ticks, of the process pid and all its descendants alive now (nginx's
// master and worker).
func treeTicks(pid int) (cpuTicks, error) {
	all, err := allStats()
	if err != nil {
		return cpuTicks{}, err
	}
	return sumTree(all, pid)
}

// sumTree adds the user and the system ticks of root and its descendants among stats.
func sumTree(stats []procStat, root int) (cpuTicks, error) {
	children := map[int][]procStat{}
	var total cpuTicks
	found := false
	for _, s := range stats {
		children[s.PPID] = append(children[s.PPID], s)
		if s.PID == root {
			total, found = s.CPU(), true
		}
	}
	if !found {
		return cpuTicks{}, fmt.Errorf("process %d: not running", root)
	}
	queue := []int{root}
	for len(queue) > 0 {
		for _, c := range children[queue[0]] {
			total.User += c.UTime
			total.System += c.STime
			queue = append(queue, c.PID)
		}
		queue = queue[1:]
	}
	return total, nil
}

// allStats reads the stat of every process; processes that end while it reads are skipped.
func allStats() ([]procStat, error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil, fmt.Errorf("list processes: %w", err)
	}
	var out []procStat
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		s, err := readStat(pid)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// schedNanos is the time on CPU, in nanoseconds, of the threads of pid alive now, from
// /proc/<pid>/task/*/schedstat: a finer cross-check of the tick counts for small figures (threads
// that exited are not counted).
func schedNanos(pid int) (uint64, error) {
	dir := filepath.Join("/proc", strconv.Itoa(pid), "task")
	tasks, err := os.ReadDir(dir)
	if err != nil {
		return 0, fmt.Errorf("process %d: threads: %w", pid, err)
	}
	var total uint64
	for _, t := range tasks {
		b, err := os.ReadFile(filepath.Join(dir, t.Name(), "schedstat"))
		if err != nil {
			continue // the thread ended
		}
		n, err := parseSchedstat(b)
		if err != nil {
			return 0, fmt.Errorf("process %d thread %s: %w", pid, t.Name(), err)
		}
		total += n
	}
	return total, nil
}

// parseSchedstat reads the first field of a schedstat line: nanoseconds spent on the CPU.
func parseSchedstat(b []byte) (uint64, error) {
	f := bytes.Fields(b)
	if len(f) < 1 {
		return 0, errors.New("schedstat: empty")
	}
	n, err := strconv.ParseUint(string(f[0]), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("schedstat %q: %w", b, err)
	}
	return n, nil
}

// cpuTimes is one CPU's line of /proc/stat, in ticks.
type cpuTimes struct{ Busy, Idle, Steal uint64 }

// parseCPUStat reads the per-CPU lines of /proc/stat ("cpu0 user nice system idle iowait irq
// softirq steal ..."), keyed by CPU number. Busy is user + nice + system + irq + softirq + steal.
func parseCPUStat(b []byte) (map[int]cpuTimes, error) {
	out := map[int]cpuTimes{}
	for line := range bytes.SplitSeq(b, []byte("\n")) {
		f := bytes.Fields(line)
		if len(f) < 9 || !bytes.HasPrefix(f[0], []byte("cpu")) || len(f[0]) == 3 {
			continue
		}
		cpu, err := strconv.Atoi(string(f[0][3:]))
		if err != nil {
			return nil, fmt.Errorf("/proc/stat %q: %w", f[0], err)
		}
		var v [8]uint64
		for i := range v {
			if v[i], err = strconv.ParseUint(string(f[i+1]), 10, 64); err != nil {
				return nil, fmt.Errorf("/proc/stat %s field %d: %w", f[0], i+1, err)
			}
		}
		out[cpu] = cpuTimes{Busy: v[0] + v[1] + v[2] + v[5] + v[6] + v[7], Idle: v[3] + v[4], Steal: v[7]}
	}
	if len(out) == 0 {
		return nil, errors.New("/proc/stat: no per-CPU line")
	}
	return out, nil
}

// readCPUTimes reads one CPU's counters from /proc/stat.
func readCPUTimes(cpu int) (cpuTimes, error) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return cpuTimes{}, err
	}
	all, err := parseCPUStat(b)
	if err != nil {
		return cpuTimes{}, err
	}
	t, ok := all[cpu]
	if !ok {
		return cpuTimes{}, fmt.Errorf("/proc/stat: no cpu%d", cpu)
	}
	return t, nil
}
