package capacity

import (
	"strings"

	"github.com/crankshaft/crankshaft/internal/measure"
	"github.com/crankshaft/crankshaft/internal/results"
)

// Column is one figure of the steps' table. Its unit and its rounding are the catalog's for the
// measurement it shows, so the terminal table and crank report's write the same cells.
type Column struct {
	// Label is the figure's short name ("p99"); Heading adds the unit ("p99 ms").
	Label, Heading string
	Name           string // the catalog's measurement
	Unit, Format   string // the catalog's
	value          func(Step) float64
}

// Cell is the column's figure of a step, as the tables write it.
func (c Column) Cell(s Step) string { return results.Format(c.value(s), c.Format) }

// Value is the column's figure of a step, unrounded.
func (c Column) Value(s Step) float64 { return c.value(s) }

// Columns are the steps' table's figures, in order: asked and done req/s, p50, p90, p99, errors,
// the servers' mean CPU, lock contention, exceptions.
func Columns() []Column {
	cat := measure.Default()
	col := func(label, name string, value func(Step) float64) Column {
		m := cat[name]
		heading := label + " " + m.Unit
		if strings.HasPrefix(m.Unit, "/") {
			heading = label + m.Unit
		}
		return Column{Label: label, Heading: heading, Name: name, Unit: m.Unit, Format: m.Format, value: value}
	}
	return []Column{
		col("asked", measure.LoadAskedRate, func(s Step) float64 { return s.Asked }),
		col("done", measure.RPS, func(s Step) float64 { return s.Achieved }),
		col("p50", measure.Latency50, func(s Step) float64 { return s.Latency50 }),
		col("p90", measure.Latency90, func(s Step) float64 { return s.Latency90 }),
		col("p99", measure.Latency99, func(s Step) float64 { return s.Latency99 }),
		col("errors", measure.ErrorRate, func(s Step) float64 { return s.ErrorRate }),
		col("server CPU", measure.CPU, func(s Step) float64 { return s.ServerCPU }),
		col("contention", measure.LockContention, func(s Step) float64 { return s.LockContention }),
		col("exceptions", measure.ExceptionCount, func(s Step) float64 { return s.Exceptions }),
	}
}

// Rate writes a rate as the table does (the catalog's requests/s).
func Rate(r float64) string {
	m := measure.Default()[measure.RPS]
	return results.Format(r, m.Format) + " " + m.Unit
}
