package report

import (
	"fmt"
	"strings"

	"github.com/crankshaft/crankshaft/internal/gate"
)

// Comparison is crank compare's report of one run against the first, as HTML tables: the same
// rows, cells and verdicts as its text.
type Comparison struct {
	Base, Head string
	// BaseColumn and HeadColumn head the value columns: the names without ".json".
	BaseColumn, HeadColumn string
	Heading                string // "after.json against before.json: threshold 5%, alpha 0.05"
	Services               []CompareTable
	Warnings               []string
	Notes                  []string
	Summary                string
	Regressed              bool
	Inconclusive           bool // nothing regressed, but a comparison could not tell
}

// CompareTable is one service's rows.
type CompareTable struct {
	Service string
	Rows    []CompareRow
}

// CompareRow is one metric: its unit, the base's and the head's values and the comparison's cells.
type CompareRow struct {
	Metric, Unit string
	Base         string
	gate.Cells
	Class string // "regressed", "improved", "inconclusive" or "" (the row's colour)
}

// comparison turns crank compare's report into the page's tables.
func comparison(rep gate.Report, base, head string) Comparison {
	c := Comparison{Base: base, Head: head, Warnings: rep.Warnings, Notes: rep.Notes(),
		Summary:    strings.TrimPrefix(rep.Summary(), "Result: "),
		BaseColumn: strings.TrimSuffix(base, ".json"), HeadColumn: strings.TrimSuffix(head, ".json"),
		Regressed: rep.Regressed(), Inconclusive: rep.ExitCode() == gate.ExitInconclusive,
		Heading: fmt.Sprintf("%s against %s: threshold %g%%, significance level %g", head, base, 100*rep.Threshold, rep.Alpha)}
	for _, s := range rep.Services {
		t := CompareTable{Service: s.Service}
		for _, row := range s.Rows {
			if len(row.Compared) != 1 {
				continue // one head per report: crank report compares each run with the first alone
			}
			cmp := row.Compared[0]
			t.Rows = append(t.Rows, CompareRow{Metric: row.Metric, Unit: row.Unit, Base: row.BaseCell(),
				Cells: row.CellsOf(cmp), Class: verdictClass(cmp.Verdict)})
		}
		c.Services = append(c.Services, t)
	}
	return c
}

// verdictClass is the colour of a verdict: red for a regression, green for an improvement, grey
// for a comparison that cannot tell.
func verdictClass(v gate.Verdict) string {
	switch v {
	case gate.VerdictRegressed:
		return "regressed"
	case gate.VerdictImproved:
		return "improved"
	case gate.VerdictInconclusive:
		return "inconclusive"
	}
	return ""
}
