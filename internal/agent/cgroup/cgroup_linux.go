package cgroup

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// Root is where the cgroup hierarchies are mounted.
const Root = "/sys/fs/cgroup"

// baseName is the folder, in each hierarchy, under which the jobs' groups are made.
const baseName = "crankshaft"

// v1Controllers are the v1 hierarchies used for limits v2 cannot honour on a hybrid machine.
var v1Controllers = []string{"cpu", "cpuset", "memory"}

// Manager makes the jobs' groups. The zero value (and a Manager whose Open failed) makes none.
type Manager struct {
	mu    sync.Mutex
	v2    string          // folder of the jobs' v2 groups; "" when none can be made
	v2ctl map[string]bool // controllers the v2 job groups have
	v1    map[string]string
	why   string // why there is no containment
	// delegated: the groups are made in the subtree systemd delegated to the agent's service
	// (a non-root agent), not under the hierarchy's root.
	delegated bool
}

// Open finds the cgroup v2 hierarchy and makes the jobs' parent group in it (and in the v1
// hierarchies of a hybrid machine). When it cannot, the Manager makes no group and Describe says
// why.
func Open() *Manager {
	m := &Manager{v2ctl: map[string]bool{}, v1: map[string]string{}}
	root := ""
	for _, dir := range []string{Root, filepath.Join(Root, "unified")} {
		if isV2(dir) {
			root = dir
			break
		}
	}
	if root == "" {
		m.why = "no cgroup v2 hierarchy is mounted at " + Root + " or " + Root + "/unified"
		return m
	}
	base := filepath.Join(root, baseName)
	err := makeBase(base)
	if err != nil {
		// Not root (or a read-only hierarchy): the subtree systemd delegated to the agent's
		// service (Delegate=yes), if it has one.
		dbase, derr := delegated(root)
		if derr != nil {
			m.why = fmt.Sprintf("cannot make %s (%v), and %v", base, err, derr)
			return m
		}
		m.v2, m.delegated = dbase, true
		for _, c := range []string{"cpu", "cpuset", "memory"} {
			if write(filepath.Join(filepath.Dir(dbase), "cgroup.subtree_control"), "+"+c) == nil &&
				write(filepath.Join(dbase, "cgroup.subtree_control"), "+"+c) == nil {
				m.v2ctl[c] = true
			}
		}
		return m // a delegated subtree is v2 only: the v1 hierarchies are root's
	}
	m.v2 = base
	removeStale(base)
	// Delegate what the root offers: cpu, cpuset and memory in the jobs' groups.
	for _, c := range []string{"cpu", "cpuset", "memory"} {
		_ = write(filepath.Join(root, "cgroup.subtree_control"), "+"+c)
		if write(filepath.Join(base, "cgroup.subtree_control"), "+"+c) == nil {
			m.v2ctl[c] = true
		}
	}
	if root == Root {
		return m // pure v2: no v1 hierarchies
	}
	for _, c := range v1Controllers {
		if m.v2ctl[c] {
			continue
		}
		dir := filepath.Join(Root, c)
		if _, err := os.Stat(filepath.Join(dir, "tasks")); err != nil {
			continue
		}
		b := filepath.Join(dir, baseName)
		if err := os.Mkdir(b, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
			continue
		}
		if c == "cpuset" && !inheritCpuset(dir, b) {
			continue
		}
		removeStale(b)
		m.v1[c] = b
	}
	return m
}

// makeBase makes the jobs' parent group, or finds it, and proves that a job group can be made in
// it: a group an earlier root agent made may exist and still refuse this agent's.
func makeBase(base string) error {
	if err := os.Mkdir(base, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
		return err
	}
	probe := filepath.Join(base, fmt.Sprintf(".probe-%d", os.Getpid()))
	if err := os.Mkdir(probe, 0o755); err != nil {
		return err
	}
	return os.Remove(probe)
}

// delegated makes the jobs' parent group in the agent's own v2 group, when that group was
// delegated to the agent's user (systemd's Delegate=yes): the agent moves itself into a leaf of it
// ("agent": a v2 group with children holds no process) and makes the jobs' groups under "jobs".
func delegated(root string) (string, error) {
	lines, err := procCgroups(os.Getpid())
	if err != nil {
		return "", err
	}
	own := ""
	for _, l := range lines {
		if l.v2() {
			own = filepath.Join(root, l.path)
		}
	}
	if own == "" {
		return "", errors.New("the agent has no cgroup v2 group of its own to delegate from")
	}
	if filepath.Base(own) == "agent" { // moved there by an earlier Open of this process
		own = filepath.Dir(own)
	}
	if unix.Access(filepath.Join(own, "cgroup.procs"), unix.W_OK) != nil || unix.Access(filepath.Join(own, "cgroup.subtree_control"), unix.W_OK) != nil {
		return "", fmt.Errorf("the agent's group %s is not delegated to it (run the service with Delegate=yes)", own)
	}
	leaf := filepath.Join(own, "agent")
	if err := os.Mkdir(leaf, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
		return "", fmt.Errorf("delegated group %s: %w", own, err)
	}
	if err := write(filepath.Join(leaf, "cgroup.procs"), strconv.Itoa(os.Getpid())); err != nil {
		return "", fmt.Errorf("delegated group %s: moving the agent into %s: %w", own, leaf, err)
	}
	base := filepath.Join(own, "jobs")
	if err := makeBase(base); err != nil {
		return "", fmt.Errorf("delegated group %s: %w", own, err)
	}
	removeStale(base)
	return base, nil
}

// staleAge is how old an empty job group must be for Open to remove it: a job's group is empty
// only for the moment between its creation and its process's start.
const staleAge = time.Minute

// removeStale removes the empty job groups under base that agents which died (a killed agent, a
// killed crank with its embedded agent) left; a group with processes is not removable.
func removeStale(base string) {
	ents, _ := os.ReadDir(base)
	for _, e := range ents {
		if fi, err := e.Info(); err == nil && e.IsDir() && time.Since(fi.ModTime()) > staleAge {
			_ = os.Remove(filepath.Join(base, e.Name()))
		}
	}
}

func isV2(dir string) bool {
	var st unix.Statfs_t
	return unix.Statfs(dir, &st) == nil && st.Type == unix.CGROUP2_SUPER_MAGIC
}

// inheritCpuset gives a new v1 cpuset group its parent's CPUs and memory nodes (a v1 cpuset
// group with none admits no process) and has its children inherit them.
func inheritCpuset(parent, dir string) bool {
	for _, f := range []string{"cpuset.cpus", "cpuset.mems"} {
		cur, _ := os.ReadFile(filepath.Join(dir, f))
		if strings.TrimSpace(string(cur)) != "" {
			continue
		}
		v, err := os.ReadFile(filepath.Join(parent, f))
		if err != nil || write(filepath.Join(dir, f), strings.TrimSpace(string(v))) != nil {
			return false
		}
	}
	return write(filepath.Join(dir, "cgroup.clone_children"), "1") == nil
}

// Available reports whether jobs get a group of their own.
func (m *Manager) Available() bool {
	if m == nil {
		return false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.v2 != ""
}

// base is the folder of the jobs' v2 groups ("" when none are made).
func (m *Manager) base() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.v2
}

// Disable stops making groups, for why (a kernel, or an emulator, that cannot start a process in
// one).
func (m *Manager) Disable(why string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.v2, m.why = "", why
}

// Describe says where the jobs' groups are and which limits they can take, or why there are none.
func (m *Manager) Describe() string {
	if !m.Available() {
		why := "unknown"
		if m != nil {
			m.mu.Lock()
			why = m.why
			m.mu.Unlock()
		}
		return "none (process groups only): " + why
	}
	var limits []string
	for _, c := range []string{"cpu", "cpuset", "memory"} {
		switch {
		case m.v2ctl[c]:
			limits = append(limits, c+" (v2)")
		case m.v1[c] != "":
			limits = append(limits, c+" (v1)")
		}
	}
	if len(limits) == 0 {
		limits = []string{"none"}
	}
	where := "cgroup v2 at " + m.base()
	if m.delegated {
		where += " (delegated to the agent's service)"
	}
	return where + "; limits: " + strings.Join(limits, ", ")
}

// New makes the group name (a job id) with the limits. The warnings say which limits cannot be
// honoured here.
func (m *Manager) New(name string, l Limits) (*Group, []string, error) {
	if !m.Available() {
		return nil, nil, errors.New("no cgroup: " + m.why)
	}
	g := &Group{path: filepath.Join(m.base(), name)}
	if err := os.Mkdir(g.path, 0o755); err != nil {
		return nil, nil, fmt.Errorf("cgroup %s: %w", g.path, err)
	}
	fd, err := os.Open(g.path)
	if err != nil {
		_ = os.Remove(g.path)
		return nil, nil, fmt.Errorf("cgroup %s: %w", g.path, err)
	}
	g.fd = fd
	var warns []string
	set := func(c, v2file, v1file, value string) {
		var err error
		switch {
		case m.v2ctl[c]:
			err = write(filepath.Join(g.path, v2file), value)
		case m.v1[c] != "":
			dir := filepath.Join(m.v1[c], name)
			if err = os.Mkdir(dir, 0o755); err == nil {
				g.v1 = append(g.v1, dir)
				err = write(filepath.Join(dir, v1file), value)
			}
		default:
			err = fmt.Errorf("the %s controller is not available to the agent", c)
		}
		if err != nil {
			warns = append(warns, fmt.Sprintf("%s not applied: %v", c, err))
		}
	}
	if l.CPUSet != "" {
		set("cpuset", "cpuset.cpus", "cpuset.cpus", l.CPUSet)
	}
	if l.MemoryBytes > 0 {
		set("memory", "memory.max", "memory.limit_in_bytes", strconv.FormatUint(l.MemoryBytes, 10))
	}
	if l.CPURatio > 0 {
		q := strconv.FormatInt(quota(l.CPURatio), 10)
		if m.v2ctl["cpu"] {
			set("cpu", "cpu.max", "", q+" "+strconv.Itoa(cfsPeriod))
		} else {
			set("cpu", "", "cpu.cfs_quota_us", q)
		}
	}
	return g, warns, nil
}

func write(path, value string) error {
	return os.WriteFile(path, []byte(value), 0o644)
}

// RemoveJob kills what is left in the groups of a job an earlier agent made (a killed agent does
// not remove them) and removes them.
func (m *Manager) RemoveJob(id string) {
	if !m.Available() {
		return
	}
	dirs, _ := filepath.Glob(filepath.Join(m.base(), id+"-*"))
	for _, v1 := range m.v1 {
		more, _ := filepath.Glob(filepath.Join(v1, id+"-*"))
		dirs = append(dirs, more...)
	}
	for _, dir := range dirs {
		fd, err := os.Open(dir)
		if err != nil {
			continue
		}
		_ = (&Group{path: dir, fd: fd}).Close()
	}
}
