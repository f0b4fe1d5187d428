package buildcache

import (
	"errors"
	"syscall"
)

// isCrossDevice reports whether a rename failed because its two paths are on different devices.
func isCrossDevice(err error) bool { return errors.Is(err, syscall.EXDEV) }
