// Package sample measures a process tree: the CPU it used between two samples and the memory it
// holds, plus the whole machine's CPU.
//
// CPU is computed from deltas of each process's cumulative user+system time. A process that
// appears between two samples counts with all the time it has used; a process that disappears
// keeps what was last counted for it: the time it used between the last sample and its exit is
// not seen (its parent's "children" times are not read, since they would count again processes
// that were already counted while alive).
package sample

import (
	"fmt"
	"time"
)

// Stats is one sample of a process tree.
type Stats struct {
	Time time.Time
	// CPU is the tree's CPU in percent of the whole machine, CPURaw in percent of one core.
	CPU, CPURaw float64
	// CPUGlobal is the whole machine's busy CPU in percent (steal included: time a CPU was not
	// idle for this machine); CPUSteal the share of the machine's CPU time its hypervisor gave to
	// other guests (steal), in percent.
	CPUGlobal, CPUSteal float64
	// WorkingSetMB is the tree's resident memory, or its control group's working set (usage less
	// inactive file pages) when WorkingSetFromCgroup; PrivateMB its anonymous resident memory.
	WorkingSetMB, PrivateMB float64
	WorkingSetFromCgroup    bool
	// Processes is how many processes the tree holds.
	Processes int
	// BusiestThread is the CPU of the tree's busiest thread, in percent of one core, when
	// HasThreads: a thread near 100 % is a limit the tree's own CPU does not show (one event
	// loop, one lock holder) when the tree has more cores than one.
	BusiestThread float64
	HasThreads    bool
}

// procKey tells processes apart even when a pid is reused.
type procKey struct {
	pid   int
	start uint64
}

// procInfo is what one read of the process table gives for one process of the tree.
type procInfo struct {
	cpuSeconds        float64
	rssBytes, anonRSS float64
}

// machine is the machine-wide CPU counters, in any consistent unit.
type machine struct{ busy, steal, total float64 }

// since is the machine's busy CPU and steal between prev and m, in percent of all its CPU time.
func (m machine) since(prev machine) (busy, steal float64) {
	dt := m.total - prev.total
	if dt <= 0 {
		return 0, 0
	}
	return (m.busy - prev.busy) / dt * 100, max(0, m.steal-prev.steal) / dt * 100
}

// Sampler samples one process tree. It is not safe for concurrent use.
type Sampler struct {
	root    int
	numCPU  int
	last    map[procKey]float64
	at      time.Time
	machine machine
	threads threadTimes
}

// New starts sampling the tree rooted at pid: it reads the current counters, against which the
// first Sample measures.
func New(pid int) (*Sampler, error) {
	s := &Sampler{root: pid, numCPU: NumCPU()}
	tree, err := readTree(pid)
	if err != nil {
		return nil, fmt.Errorf("sample process %d: %w", pid, err)
	}
	s.last = cpuOf(tree)
	s.threads = readThreads(pidsOf(tree))
	s.at = time.Now()
	s.machine, _ = readMachine()
	return s, nil
}

// Sample measures the tree since the previous sample (or New).
func (s *Sampler) Sample() (Stats, error) {
	tree, err := readTree(s.root)
	if err != nil {
		return Stats{}, fmt.Errorf("sample process %d: %w", s.root, err)
	}
	now := time.Now()
	m, err := readMachine()
	if err != nil {
		return Stats{}, fmt.Errorf("sample machine: %w", err)
	}
	cur := cpuOf(tree)
	threads := readThreads(pidsOf(tree))
	st := Stats{Time: now, Processes: len(tree)}
	if wall := now.Sub(s.at).Seconds(); wall > 0 {
		st.CPURaw = cpuDelta(s.last, cur) / wall * 100
		st.CPU = st.CPURaw / float64(s.numCPU)
		st.BusiestThread, st.HasThreads = busiestThread(s.threads, threads, wall)
	}
	st.CPUGlobal, st.CPUSteal = m.since(s.machine)
	for _, p := range tree {
		st.WorkingSetMB += p.rssBytes / (1 << 20)
		st.PrivateMB += p.anonRSS / (1 << 20)
	}
	s.last, s.at, s.machine, s.threads = cur, now, m, threads
	return st, nil
}

// pidsOf is the pids of a tree's processes.
func pidsOf(tree map[procKey]procInfo) []int {
	pids := make([]int, 0, len(tree))
	for k := range tree {
		pids = append(pids, k.pid)
	}
	return pids
}

func cpuOf(tree map[procKey]procInfo) map[procKey]float64 {
	m := make(map[procKey]float64, len(tree))
	for k, p := range tree {
		m[k] = p.cpuSeconds
	}
	return m
}

// cpuDelta is the CPU seconds the tree used between two reads: for each process now present, its
// time minus what was counted before (nothing for a new process); vanished processes add nothing.
func cpuDelta(prev, cur map[procKey]float64) float64 {
	var d float64
	for k, c := range cur {
		if v := c - prev[k]; v > 0 {
			d += v
		}
	}
	return d
}
