//go:build !linux

package profiler

import (
	"context"
	"errors"

	"github.com/google/pprof/profile"
)

var errNoPerf = errors.New("perf records on Linux agents only")

// Probe says whether perf can record here: never off Linux.
func Probe(context.Context) error { return errNoPerf }

type perfRun struct{}

func startPerf(string, PerfArgs, []int) (*perfRun, error) { return nil, errNoPerf }

func (*perfRun) stop() {}

func (*perfRun) profile(context.Context) (*profile.Profile, error) { return nil, errNoPerf }
