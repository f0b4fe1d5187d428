//go:build !linux

package cgroup

import "errors"

// Manager makes no group outside Linux.
type Manager struct{}

// Open returns a Manager that makes no group.
func Open() *Manager { return &Manager{} }

// Available is false outside Linux.
func (m *Manager) Available() bool { return false }

// Disable does nothing: there are no groups.
func (m *Manager) Disable(string) {}

// RemoveJob does nothing: there are no groups.
func (m *Manager) RemoveJob(string) {}

// Describe says there is no containment.
func (m *Manager) Describe() string { return "none (process groups only): cgroups are Linux only" }

// New fails outside Linux.
func (m *Manager) New(string, Limits) (*Group, []string, error) {
	return nil, nil, errors.New("no cgroup outside Linux")
}

// Group is never made outside Linux.
type Group struct{}

func (g *Group) Path() string           { return "" }
func (g *Group) FD() int                { return -1 }
func (g *Group) Enter() (func(), error) { return func() {}, nil }
func (g *Group) Kill()                  {}
func (g *Group) Close() error           { return nil }

// Procs is empty outside Linux.
func Procs(string) []int { return nil }

// CPUSeconds fails outside Linux.
func CPUSeconds(string) (float64, error) { return 0, errors.New("no cgroup outside Linux") }

// OfPid fails outside Linux.
func OfPid(int) (string, error) { return "", errors.New("no cgroup outside Linux") }

// WorkingSet has no control group outside Linux.
func WorkingSet(int, string) (float64, bool) { return 0, false }
