package cli

import (
	"context"
	"fmt"

	"github.com/crankshaft/crankshaft/internal/controller"
	"github.com/crankshaft/crankshaft/internal/influx"
	"github.com/crankshaft/crankshaft/internal/results"
	"github.com/crankshaft/crankshaft/internal/runner"
)

// command is what a command built on runs (sweep, capacity, bisect) gets from the command line:
// the run flags as a plan, and the command line's controller, writers and InfluxDB.
func command(st State, f *runFlags) *runner.Command {
	log := logger(st.Stderr, f.verbose)
	c := &runner.Command{Env: runEnv(st), Getenv: st.Getenv, Plan: f.plan(), JSON: f.jsonOut, DryRun: f.dryRun, Verbose: f.verbose,
		Controller: func() (*controller.Controller, error) { return newController(st, f, log, st.Stderr, nil) },
		WriteJSON:  func(path string, res *results.Result) bool { return writeJSON(st, path, res) },
		Written:    func(paths ...string) { recordWritten(st, paths...) }}
	if cfg := influxConfig(st, f); cfg.Enabled() {
		c.Publish = func(ctx context.Context, res *results.Result) error {
			sum, err := influx.Publish(ctx, cfg, res, log)
			if err == nil {
				fmt.Fprintln(st.Stderr, sum.String())
			}
			return err
		}
	}
	return c
}
