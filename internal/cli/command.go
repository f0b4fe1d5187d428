package cli

import (
	"github.com/crankshaft/crankshaft/internal/controller"
	"github.com/crankshaft/crankshaft/internal/output"
	"github.com/crankshaft/crankshaft/internal/runner"
)

// command is what a command built on runs (sweep, capacity, bisect) gets from the command line:
// the run flags as a plan, the command line's controller, and its outputs' settings (the command
// chooses its outputs by name).
func command(st State, f *runFlags) *runner.Command {
	log := logger(st.Stderr, f.verbose)
	c := &runner.Command{Env: runEnv(st), Getenv: st.Getenv, Plan: f.plan(), JSON: f.jsonOut, DryRun: f.dryRun, Verbose: f.verbose,
		Controller: func() (*controller.Controller, error) { return newController(st, f, log, st.Stderr, nil) },
		Written:    func(paths ...string) { recordWritten(st, paths...) },
		Outputs: output.Params{Stdout: st.Stdout, Stderr: st.Stderr, Logger: log, Influx: influxConfig(st, f),
			Written: func(p string) { recordWritten(st, p) }}}
	return c
}
