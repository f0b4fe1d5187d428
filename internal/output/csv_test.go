package output

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/results"
)

// TestCSVFormulaCellsQuoted: an agent's cpuModel "=cmd|' /C calc'!A0" (and a description, a
// property, a measurement's name) went into the CSV as a formula a spreadsheet runs; such cells
// are prefixed with a single quote (OWASP), numbers are kept (issue 41, LOW).
func TestCSVFormulaCellsQuoted(t *testing.T) {
	res := &results.Result{Session: "s", Description: "+SUM(A1:A9)", JobResults: results.JobResults{
		Properties: map[string]string{"owner": "@evil", "tab": "\tx", "=k": "v"},
		Jobs: map[string]*results.JobResult{"load": {
			Results:     map[string]float64{"http/rps/mean": -1.5, "=HYPERLINK(\"x\")": 1},
			Metadata:    []api.Metadata{{Name: "http/rps/mean"}, {Name: "=HYPERLINK(\"x\")"}},
			Environment: map[string]any{"cpuModel": "=cmd|' /C calc'!A0", "kernel": "-rc1", "cores": -2},
		}}}}
	path := filepath.Join(t.TempDir(), "r.csv")
	if err := WriteCSV(path, res, time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	want := "Session,DateTimeUtc,Description,load.http/rps/mean,\"load.=HYPERLINK(\"\"x\"\")\",load.cores,load.cpuModel,load.kernel,'=k,owner,tab\n" +
		"s,2026-01-02T03:04:05,'+SUM(A1:A9),-1.5,1,-2,'=cmd|' /C calc'!A0,'-rc1,v,'@evil,'\tx\n"
	if string(b) != want {
		t.Errorf("csv:\n%s\nwant:\n%s", b, want)
	}
}

// TestCSVHeaderMismatchRefused: a run whose columns differ from the file's header (a measurement
// more, one fewer) appended its row under other columns' names; now the row is refused with an
// error naming the file and the columns, and the file is left as it was (issue 41, LOW).
func TestCSVHeaderMismatchRefused(t *testing.T) {
	run := func(names ...string) *results.Result {
		jr := &results.JobResult{Results: map[string]float64{}}
		for _, n := range names {
			jr.Results[n] = 1
			jr.Metadata = append(jr.Metadata, api.Metadata{Name: n})
		}
		return &results.Result{JobResults: results.JobResults{Jobs: map[string]*results.JobResult{"load": jr}}}
	}
	path := filepath.Join(t.TempDir(), "r.csv")
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	if err := WriteCSV(path, run("a", "b"), now); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(path)
	err := WriteCSV(path, run("a", "c"), now)
	if err == nil || !strings.Contains(err.Error(), path+": its header does not match this run's columns") ||
		!strings.Contains(err.Error(), "this run's columns not in the file: load.c; the file's columns this run lacks: load.b") {
		t.Errorf("another column: %v, want a refusal naming the file and load.b, load.c", err)
	}
	if after, _ := os.ReadFile(path); string(after) != string(before) {
		t.Errorf("the file changed:\n%s", after)
	}
	if err := WriteCSV(path, run("a", "b"), now); err != nil {
		t.Errorf("the same columns again: %v", err)
	}
	empty := filepath.Join(t.TempDir(), "empty.csv")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteCSV(empty, run("a"), now); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(empty); !strings.HasPrefix(string(b), "Session,DateTimeUtc,Description,load.a\n") {
		t.Errorf("an empty file got no header:\n%s", b)
	}
}
