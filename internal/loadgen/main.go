package loadgen

import (
	"context"
	"fmt"
	"io"

	"github.com/crankshaft/crankshaft/internal/flags"
	"github.com/crankshaft/crankshaft/internal/safewrite"
)

// Exit codes of Main.
const (
	ExitOK     = 0 // the run got responses
	ExitFailed = 1 // the run failed, got no response, or was interrupted
	ExitUsage  = 2 // bad command line
)

// Main runs `crank load URL [flags]`; args are the arguments after "load". It prints a summary
// (--output text) or a JSON object of results (--output json) on stdout, and with --json FILE
// writes a crank-shaped result (FILE "-" is stdout, and the summary then goes to stderr).
func Main(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	c, err := parseArgs(args, getenv)
	if err != nil {
		return flags.Fail(err, "crank load", stdout, stderr, usage) // never help: parseArgs returns it as c.help
	}
	if c.help {
		usage(stdout)
		return ExitOK
	}
	if c.latencyLog != "" {
		f, err := safewrite.Create(c.latencyLog, safewrite.Output)
		if err != nil {
			return fail(c, stdout, stderr, fmt.Errorf("--latency-log: %w", err))
		}
		defer f.Close()
		c.opts.LatencyLog = f
	}
	rep, runErr := Run(ctx, c.opts)
	if rep == nil {
		return fail(c, stdout, stderr, runErr)
	}
	if runErr == nil && rep.Requests == 0 {
		runErr = fmt.Errorf("no responses from %s (errors: %s)", c.opts.URL, rep.Errors)
		if rep.ConnectError != "" {
			runErr = fmt.Errorf("%w; first connect error: %s", runErr, rep.ConnectError)
		}
	}
	if err := writeOutputs(c, rep, runErr, stdout, stderr); err != nil {
		fmt.Fprintf(stderr, "crank load: error: writing results: %v\n", err)
		return ExitFailed
	}
	if runErr != nil {
		fmt.Fprintf(stderr, "crank load: error: %v\n", runErr)
		return ExitFailed
	}
	return ExitOK
}

// fail reports a run that produced no report: on stderr, and as {"error": ...} on stdout with
// --output json.
func fail(c *command, stdout, stderr io.Writer, err error) int {
	fmt.Fprintf(stderr, "crank load: error: %v\n", err)
	if c.format == FormatJSON {
		_ = writeJSON(stdout, jsonOutput{Error: err.Error()})
	}
	return ExitFailed
}
