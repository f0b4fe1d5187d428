package cgroup

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// Group is one job's control group.
type Group struct {
	path string
	fd   *os.File
	v1   []string // the job's v1 groups (limits on a hybrid machine)
}

// Path is the group's folder in the v2 hierarchy.
func (g *Group) Path() string { return g.path }

// FD is the group folder's descriptor, for clone3's CLONE_INTO_CGROUP.
func (g *Group) FD() int { return int(g.fd.Fd()) }

// Enter puts the calling thread into the job's v1 groups, so that a process it forks starts in
// them (its v2 group the process enters by clone3), until leave puts the thread back where it
// was. The caller locks its goroutine to its OS thread (runtime.LockOSThread) around both.
func (g *Group) Enter() (leave func(), err error) {
	if len(g.v1) == 0 {
		return func() {}, nil
	}
	tid := strconv.Itoa(unix.Gettid())
	var back []string
	leave = func() {
		for _, dir := range back {
			_ = write(filepath.Join(dir, "tasks"), tid)
		}
	}
	for _, dir := range g.v1 {
		from, err := threadGroup(filepath.Dir(filepath.Dir(dir)))
		if err != nil {
			leave()
			return nil, err
		}
		if err := write(filepath.Join(dir, "tasks"), tid); err != nil {
			leave()
			return nil, fmt.Errorf("cgroup %s: %w", dir, err)
		}
		back = append(back, from)
	}
	return leave, nil
}

// threadGroup is the calling thread's group in the v1 hierarchy mounted at root.
func threadGroup(root string) (string, error) {
	b, err := os.ReadFile("/proc/thread-self/cgroup")
	if err != nil {
		return "", err
	}
	name := filepath.Base(root)
	for line := range strings.SplitSeq(strings.TrimSpace(string(b)), "\n") {
		f := strings.SplitN(line, ":", 3)
		if len(f) == 3 && slices.Contains(strings.Split(f[1], ","), name) {
			return filepath.Join(root, f[2]), nil
		}
	}
	return "", fmt.Errorf("the agent's thread has no group in %s", root)
}

// Kill sends SIGKILL to every process in the group (cgroup.kill, or one by one on kernels before
// 5.14, repeated until none is left so that a fork racing the kill is caught).
func (g *Group) Kill() {
	if write(filepath.Join(g.path, "cgroup.kill"), "1") == nil {
		return
	}
	for range 100 {
		pids := Procs(g.path)
		if len(pids) == 0 {
			return
		}
		for _, p := range pids {
			_ = unix.Kill(p, unix.SIGKILL)
		}
	}
}

// emptyWait bounds the wait for killed processes to leave their group.
const emptyWait = 5 * time.Second

// Close kills what is left in the group, waits for it to empty and removes it.
func (g *Group) Close() error {
	g.Kill()
	deadline := time.Now().Add(emptyWait)
	var err error
	for _, dir := range append([]string{g.path}, g.v1...) {
		for {
			if err = os.Remove(dir); err == nil || errors.Is(err, os.ErrNotExist) || time.Now().After(deadline) {
				break
			}
			g.Kill()
			time.Sleep(10 * time.Millisecond) // the kernel empties a killed group asynchronously
		}
	}
	g.fd.Close()
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("cgroup %s not removed: %w", g.path, err)
	}
	return nil
}

// Procs lists the processes in the group at dir.
func Procs(dir string) []int {
	b, err := os.ReadFile(filepath.Join(dir, "cgroup.procs"))
	if err != nil {
		return nil
	}
	var pids []int
	for f := range strings.FieldsSeq(string(b)) {
		if p, err := strconv.Atoi(f); err == nil {
			pids = append(pids, p)
		}
	}
	return pids
}

// CPUSeconds is the CPU time used by every process that ever ran in the group at dir: v2's
// cpu.stat usage_usec, or v1's cpuacct.usage.
func CPUSeconds(dir string) (float64, error) {
	if b, err := os.ReadFile(filepath.Join(dir, "cpu.stat")); err == nil {
		for line := range strings.SplitSeq(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "usage_usec "); ok {
				us, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
				return us / 1e6, err
			}
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, "cpuacct.usage"))
	if err != nil {
		return 0, fmt.Errorf("cgroup %s: no CPU usage: %w", dir, err)
	}
	ns, err := strconv.ParseFloat(strings.TrimSpace(string(b)), 64)
	return ns / 1e9, err
}

// OfPid finds the group whose CPU usage counts pid (a container's first process): its v2 group
// when it has one below the root, else its v1 cpuacct group.
func OfPid(pid int) (string, error) {
	lines, err := procCgroups(pid)
	if err != nil {
		return "", err
	}
	var v1 string
	for _, l := range lines {
		switch {
		case l.v2():
			for _, root := range []string{Root, filepath.Join(Root, "unified")} {
				if isV2(root) {
					return filepath.Join(root, l.path), nil
				}
			}
		case l.has("cpuacct"):
			v1 = filepath.Join(Root, "cpuacct", l.path)
		}
	}
	if v1 == "" {
		return "", fmt.Errorf("process %d: no cgroup of its own", pid)
	}
	return v1, nil
}

// cgroupLine is one line of /proc/PID/cgroup: the hierarchy's id, its controllers, the path.
type cgroupLine struct{ id, controllers, path string }

// v2 tells the unified hierarchy's line, below its root.
func (l cgroupLine) v2() bool { return l.id == "0" && l.path != "/" }

// has tells a v1 hierarchy holding the controller.
func (l cgroupLine) has(controller string) bool {
	return strings.Contains(","+l.controllers+",", ","+controller+",")
}

// procCgroups reads /proc/PID/cgroup.
func procCgroups(pid int) ([]cgroupLine, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cgroup")
	if err != nil {
		return nil, err
	}
	var out []cgroupLine
	for line := range strings.SplitSeq(strings.TrimSpace(string(b)), "\n") {
		if f := strings.SplitN(line, ":", 3); len(f) == 3 {
			out = append(out, cgroupLine{f[0], f[1], f[2]})
		}
	}
	return out, nil
}

// WorkingSet is the memory working set of the job whose control group is dir, read from the memory
// group pid is in when that group is the job's own (its last path component is dir's), in bytes,
// as docker stats and cAdvisor count it: the group's usage less its inactive file pages (v2
// memory.current and memory.stat's inactive_file; v1 memory.usage_in_bytes and
// total_inactive_file). ok is false when the job has no memory group of its own: a process job
// without a memory limit sits in the agent's memory group, whose usage is everything the agent's
// session holds (the caller then adds up the job's processes' resident memory).
func WorkingSet(pid int, dir string) (bytes float64, ok bool) {
	lines, err := procCgroups(pid)
	if err != nil {
		return 0, false
	}
	own := filepath.Base(dir)
	for _, l := range lines {
		if filepath.Base(l.path) != own {
			continue
		}
		switch {
		case l.v2():
			for _, root := range []string{Root, filepath.Join(Root, "unified")} {
				if ws, ok := workingSet(filepath.Join(root, l.path), "memory.current", "inactive_file"); ok {
					return ws, true
				}
			}
		case l.has("memory") && l.path != "/":
			if ws, ok := workingSet(filepath.Join(Root, "memory", l.path), "memory.usage_in_bytes", "total_inactive_file"); ok {
				return ws, true
			}
		}
	}
	return 0, false
}

func workingSet(dir, usageFile, inactiveKey string) (float64, bool) {
	b, err := os.ReadFile(filepath.Join(dir, usageFile))
	if err != nil {
		return 0, false
	}
	usage, err := strconv.ParseFloat(strings.TrimSpace(string(b)), 64)
	if err != nil {
		return 0, false
	}
	stat, err := os.ReadFile(filepath.Join(dir, "memory.stat"))
	if err != nil {
		return usage, true
	}
	for line := range strings.SplitSeq(string(stat), "\n") {
		if v, ok := strings.CutPrefix(line, inactiveKey+" "); ok {
			if inactive, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil && inactive <= usage {
				return usage - inactive, true
			}
		}
	}
	return usage, true
}
