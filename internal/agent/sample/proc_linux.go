package sample

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
)

// userHZ is the unit of the times in /proc/<pid>/stat: the kernel's USER_HZ, 100 on every
// architecture Linux exposes to user space (it is part of the ABI, unlike the kernel's HZ).
const userHZ = 100

// statFields is what this package reads from /proc/<pid>/stat.
type statFields struct {
	ppid       int
	cpuSeconds float64
	start      uint64
}

// readTree reads the process table and returns root and all its descendants.
func readTree(root int) (map[procKey]procInfo, error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil, err
	}
	stats := make(map[int]statFields, len(entries))
	children := make(map[int][]int)
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		st, err := readStat(pid)
		if err != nil {
			continue // gone meanwhile
		}
		stats[pid] = st
		children[st.ppid] = append(children[st.ppid], pid)
	}
	if _, ok := stats[root]; !ok {
		return nil, fmt.Errorf("process %d: %w", root, os.ErrNotExist)
	}
	tree := make(map[procKey]procInfo)
	for queue := []int{root}; len(queue) > 0; queue = queue[1:] {
		pid := queue[0]
		st := stats[pid]
		rss, anon := readMemory(pid)
		tree[procKey{pid, st.start}] = procInfo{cpuSeconds: st.cpuSeconds, rssBytes: rss, anonRSS: anon}
		queue = append(queue, children[pid]...)
	}
	return tree, nil
}

// readStat parses /proc/<pid>/stat; the command name, in parentheses, may hold anything, so the
// fields are counted from the last ')'.
func readStat(pid int) (statFields, error) {
	return readStatFile("/proc/" + strconv.Itoa(pid) + "/stat")
}

// readStatFile parses a process's or a thread's stat file, laid out alike.
func readStatFile(path string) (statFields, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return statFields{}, err
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return statFields{}, errors.New("stat: no command name")
	}
	f := strings.Fields(string(b[i+1:]))
	// f[0] is field 3 (state): field n is f[n-3].
	if len(f) < 20 {
		return statFields{}, errors.New("stat: short")
	}
	ppid, _ := strconv.Atoi(f[1])
	utime, _ := strconv.ParseUint(f[11], 10, 64)
	stime, _ := strconv.ParseUint(f[12], 10, 64)
	start, _ := strconv.ParseUint(f[19], 10, 64)
	return statFields{ppid: ppid, cpuSeconds: float64(utime+stime) / userHZ, start: start}, nil
}

// readThreads reads the CPU time of every thread of the processes pids (/proc/<pid>/task/<tid>/stat,
// the thread's own user and system time). A process or thread gone meanwhile is left out.
func readThreads(pids []int) threadTimes {
	out := make(threadTimes)
	for _, pid := range pids {
		dir := "/proc/" + strconv.Itoa(pid) + "/task/"
		tasks, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, e := range tasks {
			tid, err := strconv.Atoi(e.Name())
			if err != nil {
				continue
			}
			st, err := readStatFile(dir + e.Name() + "/stat")
			if err != nil {
				continue
			}
			out[procKey{tid, st.start}] = st.cpuSeconds
		}
	}
	return out
}

// readMemory returns VmRSS and RssAnon from /proc/<pid>/status, in bytes (0 when unreadable, as
// for a zombie).
func readMemory(pid int) (rss, anon float64) {
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0, 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		key, val, ok := strings.Cut(sc.Text(), ":")
		if !ok || (key != "VmRSS" && key != "RssAnon") {
			continue
		}
		kb, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(val), " kB"), 64)
		if key == "VmRSS" {
			rss = kb * 1024
		} else {
			anon = kb * 1024
		}
	}
	return rss, anon
}

// readMachine reads the first line of /proc/stat: busy, steal and total jiffies of all CPUs.
func readMachine() (machine, error) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return machine{}, err
	}
	line, _, _ := bytes.Cut(b, []byte("\n"))
	return parseMachine(string(line))
}

// parseMachine reads /proc/stat's "cpu" line: user nice system idle iowait irq softirq steal
// (guest time is counted in user already). Busy is all but idle and iowait; steal is the time
// the hypervisor ran other guests on this machine's CPUs.
func parseMachine(line string) (machine, error) {
	f := strings.Fields(line)
	if len(f) < 9 || f[0] != "cpu" {
		return machine{}, errors.New("/proc/stat: no cpu line")
	}
	var m machine
	for i, s := range f[1:9] {
		v, _ := strconv.ParseFloat(s, 64)
		m.total += v
		if i != 3 && i != 4 {
			m.busy += v
		}
		if i == 7 {
			m.steal = v
		}
	}
	return m, nil
}

// NumCPU counts the machine's online CPUs (the cpuN lines of /proc/stat), not only those this
// process may run on.
func NumCPU() int {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return runtime.NumCPU()
	}
	n := 0
	for line := range strings.SplitSeq(string(b), "\n") {
		if len(line) > 3 && strings.HasPrefix(line, "cpu") && line[3] >= '0' && line[3] <= '9' {
			n++
		}
	}
	return max(n, 1)
}
