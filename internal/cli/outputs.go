package cli

import (
	"context"
	"io"

	"github.com/crankshaft/crankshaft/internal/output"
	"github.com/crankshaft/crankshaft/internal/progress"
	"github.com/crankshaft/crankshaft/internal/results"
	"github.com/crankshaft/crankshaft/internal/runner"
)

// ExitInterrupted is the exit code of a run cut short by Ctrl-C or SIGTERM (128 + SIGINT), after
// what was measured has been printed and written.
const ExitInterrupted = runner.ExitInterrupted

// checkOutputs checks, before anything runs, every file the run will write and read
// (output.CheckFiles), so a long run does not end in a lost result.
func checkOutputs(f *runFlags) error {
	return output.CheckFiles(output.Files{JSON: f.jsonOut, CSV: f.output.csv, Compare: f.compare, Dir: f.display.outputDir})
}

// tablesTo is where the tables go: stdout, unless the JSON goes there.
func tablesTo(st State, f *runFlags) io.Writer {
	if f.jsonOut == "-" {
		return st.Stderr
	}
	return st.Stdout
}

// statusOf is where the run's status goes: nowhere with --quiet (the agents are then not asked
// for live figures).
func statusOf(pr *progress.Printer, mode progress.Mode) func(progress.Status) {
	if mode == progress.Quiet {
		return nil
	}
	return pr.Show
}

// compareWith compares the run's results with each --compare file in turn (the compare output,
// once a file); the run failed when any comparison finds a regression.
func compareWith(st State, files []string, res *results.Result) int {
	f := &runFlags{compare: files}
	return publish(context.Background(), st, f, output.Run{Result: res}, outputsOf(st, f, nil, output.Compare))
}
