package process_test

import (
	"log/slog"
	"testing"

	"github.com/crankshaft/crankshaft/internal/agent/buildcache"
	"github.com/crankshaft/crankshaft/internal/agent/cgroup"
	"github.com/crankshaft/crankshaft/internal/agent/process"
	"github.com/crankshaft/crankshaft/internal/agent/runtime/runtimetest"
	"github.com/crankshaft/crankshaft/internal/api"
)

// TestConformance: the process runtime passes the runtime contract's suite. Its jobs build their
// program (a copy of the suite's) with a build command, kept in a build cache: the later jobs
// reuse the first one's build.
func TestConformance(t *testing.T) {
	dir, cache := t.TempDir(), t.TempDir() // the agent's job root and build cache
	runtimetest.Run(t, func(t *testing.T) runtimetest.Subject {
		return runtimetest.Subject{Runtime: process.New(process.Options{Groups: cgroup.Open(), Dir: dir,
			Cache: buildcache.Cache{Dir: cache}, CacheMaxBytes: -1, Logger: slog.New(slog.NewTextHandler(t.Output(), nil))}),
			Spec: func(_ *testing.T, _, _ string) api.Job {
				return api.Job{Name: "conformance", BuildCommand: "cp " + runtimetest.Program + " built",
					Executable: "./built"}
			}, Identity: "conformance", Dir: dir}
	})
}
