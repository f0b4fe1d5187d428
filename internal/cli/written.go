package cli

import (
	"fmt"
	"path/filepath"

	"github.com/crankshaft/crankshaft/internal/pack"
)

// Result files never become source: what a run writes (--json, --csv, --output-dir, a sweep
// file) is left out of the folders it uploads, and recorded in the ledger (pack.Ledger) so that
// later runs leave it out too. Without it, `--json out.json` inside the checkout changed the
// source's hash on every run and every run rebuilt the app.

// writes are the files and folders this run writes.
func (f *runFlags) writes() []string {
	var out []string
	if f.jsonOut != "" && f.jsonOut != "-" {
		out = append(out, f.jsonOut)
	}
	if f.output.csv != "" {
		out = append(out, f.output.csv)
	}
	if f.display.outputDir != "" {
		out = append(out, f.display.outputDir)
	}
	return out
}

// exclude is what the run's uploads leave out: its own outputs and those the ledger records.
// An unreadable ledger is said and then only this run's outputs are left out.
func exclude(st State, f *runFlags) pack.Exclude {
	ex := pack.Exclude{Paths: f.writes()}
	l, err := pack.DefaultLedger()
	if err == nil {
		ex.Written, err = l.Read()
	}
	if err != nil {
		fmt.Fprintf(st.Stderr, "crank: warning: the record of earlier result files: %v (result files of earlier runs inside an uploaded folder are uploaded)\n", err)
	}
	return ex
}

// recordWritten adds files crank just wrote to the ledger. A failure is said, not fatal: the
// results are written, only a later run may upload them.
func recordWritten(st State, paths ...string) {
	l, err := pack.DefaultLedger()
	if err == nil {
		err = l.Record(paths...)
	}
	if err != nil {
		abs := make([]string, len(paths))
		for i, p := range paths {
			abs[i], _ = filepath.Abs(p)
		}
		fmt.Fprintf(st.Stderr, "crank: warning: recording %v as result files: %v (a later run uploading their folder includes them)\n", abs, err)
	}
}
