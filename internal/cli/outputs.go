package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/crankshaft/crankshaft/internal/output"
	"github.com/crankshaft/crankshaft/internal/progress"
	"github.com/crankshaft/crankshaft/internal/results"
	"github.com/crankshaft/crankshaft/internal/runner"
	"github.com/crankshaft/crankshaft/internal/safewrite"
)

// ExitInterrupted is the exit code of a run cut short by Ctrl-C or SIGTERM (128 + SIGINT), after
// what was measured has been printed and written.
const ExitInterrupted = runner.ExitInterrupted

// checkOutputs checks, before anything runs, every file the run will write (it can be created
// there) and read (it is a result file), so a long run does not end in a lost result.
func checkOutputs(f *runFlags) error {
	var problems []error
	if f.jsonOut != "" && f.jsonOut != "-" {
		if err := writable(f.jsonOut); err != nil {
			problems = append(problems, fmt.Errorf("--json %s: %w", f.jsonOut, err))
		}
	}
	if f.output.csv != "" { // appended to: its folder need not take new files
		if err := safewrite.Check(f.output.csv); err != nil {
			problems = append(problems, fmt.Errorf("--csv %s: %w", f.output.csv, err))
		}
	}
	for _, c := range f.compare {
		if _, err := results.ReadFile(c); err != nil {
			problems = append(problems, fmt.Errorf("--compare: %w", err))
		}
	}
	if d := f.display.outputDir; d != "" {
		// Checked before it is made (MkdirAll would make a planted link's target) and after.
		if err := safewrite.CheckDir(d); err != nil {
			problems = append(problems, fmt.Errorf("--output-dir: %w", err))
		} else if err := os.MkdirAll(d, 0o755); err != nil {
			problems = append(problems, fmt.Errorf("--output-dir: %w", err))
		} else if err := safewrite.CheckDir(d); err != nil {
			problems = append(problems, fmt.Errorf("--output-dir: %w", err))
		} else if err := writable(filepath.Join(d, "check")); err != nil {
			problems = append(problems, fmt.Errorf("--output-dir %s: %w", d, err))
		}
	}
	return errors.Join(problems...)
}

// writable tells whether a file can be written at path: nothing crank refuses to write through
// is there (safewrite.Check: a link, a folder), and another file can be created in its folder.
func writable(path string) error {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return errors.New("is a folder")
	}
	if err := safewrite.Check(path); err != nil {
		return err
	}
	dir := filepath.Dir(path)
	fi, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("folder %s does not exist", dir)
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s is not a folder", dir)
	}
	tmp, err := os.CreateTemp(dir, ".crank-write-check-*")
	if err != nil {
		return fmt.Errorf("cannot write in %s: %w", dir, err)
	}
	tmp.Close()
	return os.Remove(tmp.Name())
}

// writeJSON writes a result document (a run's, a capacity's, a bisect's) to path ("-": stdout),
// as internal/output's JSON output does; it returns false when that failed (and said so).
func writeJSON(st State, path string, res *results.Result) bool {
	o, err := output.New(output.JSON, output.Params{Arg: path, Stdout: st.Stdout, Stderr: st.Stderr,
		Written: func(p string) { recordWritten(st, p) }})
	return err == nil && o.Write(context.Background(), output.Run{Result: res}) == nil
}

// tablesTo is where the tables go: stdout, unless the JSON goes there.
func tablesTo(st State, f *runFlags) io.Writer {
	if f.jsonOut == "-" {
		return st.Stderr
	}
	return st.Stdout
}

// interruptNote describes an interrupted run above its tables.
func interruptNote(in *results.Interruption) string {
	if in.Partial {
		return fmt.Sprintf("Interrupted during iteration 1 of %d: PARTIAL results, what the jobs had measured when they were stopped.\n", in.Iterations)
	}
	return fmt.Sprintf("Interrupted: the results of the %d finished iteration(s) of %d.\n", in.FinishedIterations, in.Iterations)
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

// profileDir is where a run's profiles are saved: --output-dir, else --json's folder, else
// nowhere (their top functions are still shown).
func profileDir(f *runFlags) string {
	if f.display.outputDir != "" {
		return f.display.outputDir
	}
	if f.jsonOut != "" && f.jsonOut != "-" {
		return filepath.Dir(f.jsonOut)
	}
	return ""
}
