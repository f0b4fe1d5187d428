package gate

// Cells are a comparison's cells as crank compare prints them, for other renderings of the same
// report (crank report's HTML tables): one formatting, whatever the output.
type Cells struct {
	Value, Change, Verdict, P, CI string
}

// CellsOf renders the comparison of one file in the row's format.
func (row Row) CellsOf(c Comparison) Cells {
	return Cells{Value: cellValue(c.Value, c.Present, c.NotMeasured, row.Format), Change: formatChange(c),
		Verdict: string(c.Verdict), P: formatP(c), CI: formatCI(c)}
}

// BaseCell is the row's base value as crank compare prints it.
func (row Row) BaseCell() string {
	return cellValue(row.Base, row.BasePresent, row.BaseNotMeasured, row.Format)
}

// Notes say what would settle each inconclusive comparison, then explain the method.
func (r Report) Notes() []string { return append(r.inconclusiveLines(), r.notes()...) }

// Summary is the report's one-line result: "Result: no regression beyond 5%." or the regressions.
func (r Report) Summary() string { return r.summary() }
