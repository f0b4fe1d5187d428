//go:build !linux

package agent

import (
	"context"

	"github.com/crankshaft/crankshaft/internal/api"
)

// machineInfo knows nothing more outside Linux.
func machineInfo(context.Context, *api.Info) {}
