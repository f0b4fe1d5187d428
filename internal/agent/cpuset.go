package agent

import (
	"fmt"
	"slices"

	"github.com/crankshaft/crankshaft/internal/agent/proc"
	"github.com/crankshaft/crankshaft/internal/api"
)

// checkCPUSet tells why a job's cpuSet cannot be honoured here: not the list format, or naming a
// CPU this agent may not use.
func checkCPUSet(s string) error {
	cpus, err := api.ParseCPUSet(s)
	if err != nil || len(cpus) == 0 {
		return err
	}
	allowed, err := proc.AllowedCPUs()
	if err != nil {
		return fmt.Errorf("cpuSet %q: %w", s, err)
	}
	for _, c := range cpus {
		if !slices.Contains(allowed, c) {
			return fmt.Errorf("cpuSet %q: CPU %d is not available to this agent (it may use %s)", s, c, api.FormatCPUSet(allowed))
		}
	}
	return nil
}
