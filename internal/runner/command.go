package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/crankshaft/crankshaft/internal/config"
	"github.com/crankshaft/crankshaft/internal/controller"
	"github.com/crankshaft/crankshaft/internal/output"
	"github.com/crankshaft/crankshaft/internal/results"
	"github.com/crankshaft/crankshaft/internal/safewrite"
)

// Command is what a command built on runs (crank sweep, capacity, bisect) gets from the command
// line besides its own flags: the run options as a plan, where its files go, and the command
// line's controller, writers and InfluxDB. The command's logic lives in its own package; the
// command line only fills this in.
type Command struct {
	Env
	Getenv func(string) string
	// Plan is the run options (--config, --scenario, --variable, --<service>.<path>, --iterations,
	// --property, --session...).
	Plan    Plan
	JSON    string // --json FILE ("-": stdout)
	DryRun  string // --dry-run FILE ("-": stdout)
	Verbose bool
	// Controller is the command line's controller (agents, tokens, the embedded agent), progress
	// lines on Stderr; the caller closes it.
	Controller func() (*controller.Controller, error)
	// Written records files the command wrote, so later uploads leave them out.
	Written func(paths ...string)
	// Outputs are the command line's settings of internal/output's outputs (its streams, logger,
	// InfluxDB, the ledger of files written); a command chooses its outputs by name (Output).
	Outputs output.Params
}

// Resolve resolves src, saying the resolver's notes on Stderr (quiet: nowhere).
func (c *Command) Resolve(ctx context.Context, src Source, quiet bool) (*config.Resolved, error) {
	env := c.Env
	if quiet {
		env = c.Quiet()
	}
	r, _, err := Resolve(ctx, env, src)
	return r, err
}

// Quiet is the command's Env saying nothing: for what is resolved again and again (a search's
// steps), whose notes were said once.
func (c *Command) Quiet() Env {
	env := c.Env
	env.Stdout, env.Stderr, env.Progress = io.Discard, io.Discard, io.Discard
	return env
}

// WriteDryRun writes a --dry-run's JSON b (made with err) to path ("-": stdout), saying a
// failure as who's; it returns the exit status.
func (c *Command) WriteDryRun(who, path string, b []byte, err error) int {
	if err == nil {
		if path == "-" {
			_, err = c.Stdout.Write(append(b, '\n'))
		} else {
			err = safewrite.Replace(path, append(b, '\n'), safewrite.Output)
		}
	}
	if err != nil {
		fmt.Fprintf(c.Stderr, "%s: --dry-run %s: %v\n", who, path, err)
		return ExitFailed
	}
	return ExitOK
}

// WriteDryRunOf writes a resolved scenario's --dry-run JSON to path.
func (c *Command) WriteDryRunOf(path string, r *config.Resolved) int {
	b, err := r.DryRun()
	return c.WriteDryRun("crank", path, b, err)
}

// Override is the source with these --<service>.<path> overrides after its own (a copy; s is
// unchanged).
func (s Source) Override(o ...[2]string) Source {
	s.Overrides = append(slices.Clone(s.Overrides), o...)
	return s
}

// Output is the output registered in internal/output as name, writing to arg (a file, or "" for
// an output that takes none) with the command line's settings (Outputs); an error wrapping
// output.ErrNotConfigured when the command line did not configure it (InfluxDB without a URL).
func (c *Command) Output(name, arg string) (output.Output, error) {
	p := c.Outputs
	if p.Stdout == nil {
		p.Stdout = c.Stdout
	}
	if p.Stderr == nil {
		p.Stderr = c.Stderr
	}
	p.Arg = arg
	return output.New(name, p)
}

// WriteTo writes res to the output registered as name (Output), which says on Stderr what went
// wrong; an output the command line did not configure writes nothing and is no error.
func (c *Command) WriteTo(ctx context.Context, name, arg string, res *results.Result) error {
	o, err := c.Output(name, arg)
	switch {
	case errors.Is(err, output.ErrNotConfigured):
		return nil
	case err != nil:
		fmt.Fprintf(c.Stderr, "crank: %v\n", err)
		return err
	}
	return o.Write(ctx, output.Run{Result: res})
}
