package process_test

import (
	"testing"

	"github.com/crankshaft/crankshaft/internal/agent/cgroup"
	"github.com/crankshaft/crankshaft/internal/agent/process"
	"github.com/crankshaft/crankshaft/internal/agent/runtime/runtimetest"
	"github.com/crankshaft/crankshaft/internal/api"
)

// TestConformance: the process runtime passes the runtime contract's suite.
func TestConformance(t *testing.T) {
	runtimetest.Run(t, func(t *testing.T) runtimetest.Subject {
		return runtimetest.Subject{Runtime: process.New(cgroup.Open()),
			Spec: func(_ *testing.T, _, _ string) api.Job {
				return api.Job{Name: "conformance", Executable: "./" + runtimetest.Program}
			}}
	})
}
