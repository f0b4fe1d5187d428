//go:build !linux || loadgen_portable

package loadgen

import (
	"context"
	"errors"
)

var errNoRing = errors.New("io_uring needs Linux, and a build without the loadgen_portable tag")

func probeRing() error { return errNoRing }

func runRings(context.Context, *runConfig, []client) error { return errNoRing }
