//go:build !linux

package sample

import (
	"errors"
	"runtime"
)

var errUnsupported = errors.New("process sampling needs Linux /proc")

func readTree(int) (map[procKey]procInfo, error) { return nil, errUnsupported }

func readThreads([]int) threadTimes { return nil }

func readMachine() (machine, error) { return machine{}, errUnsupported }

func NumCPU() int { return runtime.NumCPU() }
