package sample

import (
	"fmt"
	"time"

	"github.com/crankshaft/crankshaft/internal/agent/cgroup"
)

// CgroupSampler samples the processes of a control group: CPU from the group's own counter, so a
// process that detached or already exited still counts, and memory as the group's working set
// where it has a memory controller (a Docker container's), else the resident memory of its
// processes.
type CgroupSampler struct {
	dir     string
	numCPU  int
	cpu     float64
	at      time.Time
	machine machine
	threads threadTimes
}

// NewCgroup starts sampling the group at dir (see cgroup.CPUSeconds for the counters it reads).
func NewCgroup(dir string) (*CgroupSampler, error) {
	cpu, err := cgroup.CPUSeconds(dir)
	if err != nil {
		return nil, err
	}
	s := &CgroupSampler{dir: dir, numCPU: NumCPU(), cpu: cpu, threads: readThreads(cgroup.Procs(dir)), at: time.Now()}
	s.machine, _ = readMachine()
	return s, nil
}

// Sample measures the group since the previous sample (or NewCgroup).
func (s *CgroupSampler) Sample() (Stats, error) {
	cpu, err := cgroup.CPUSeconds(s.dir)
	if err != nil {
		return Stats{}, err
	}
	pids := cgroup.Procs(s.dir)
	threads := readThreads(pids)
	now := time.Now()
	m, err := readMachine()
	if err != nil {
		return Stats{}, fmt.Errorf("sample machine: %w", err)
	}
	st := Stats{Time: now, Processes: len(pids)}
	if wall := now.Sub(s.at).Seconds(); wall > 0 && cpu >= s.cpu {
		st.CPURaw = (cpu - s.cpu) / wall * 100
		st.CPU = st.CPURaw / float64(s.numCPU)
	}
	if wall := now.Sub(s.at).Seconds(); wall > 0 {
		st.BusiestThread, st.HasThreads = busiestThread(s.threads, threads, wall)
	}
	st.CPUGlobal, st.CPUSteal = m.since(s.machine)
	for _, pid := range pids {
		rss, anon := readMemory(pid)
		st.WorkingSetMB += rss / (1 << 20)
		st.PrivateMB += anon / (1 << 20)
	}
	if len(pids) > 0 { // the job's own memory group's working set, where it has one
		if ws, ok := cgroup.WorkingSet(pids[0], s.dir); ok {
			st.WorkingSetMB, st.WorkingSetFromCgroup = ws/(1<<20), true
		}
	}
	s.cpu, s.at, s.machine, s.threads = cpu, now, m, threads
	return st, nil
}
