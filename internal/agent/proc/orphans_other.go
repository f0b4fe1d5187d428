//go:build !linux

package proc

// KillGroupsIn finds nothing outside Linux (it reads /proc).
func KillGroupsIn(dir string) []int { return nil }
