package sweep

import "github.com/crankshaft/crankshaft/internal/gate"

// Cells renders a comparison as the ratio, verdict and p-value cells of the sweep's tables
// ("1.42x", "improved *", "0.029"), for other renderings of them (crank report's HTML).
func Cells(c gate.Comparison) (ratio, verdict, p string) { return cmpCells(c) }

// Unit is the metric's unit from its metadata ("" when it has none).
func (f *File) Unit(m Metric) string {
	if md := f.metadata(m); md != nil {
		return md.Unit
	}
	return ""
}

// Format renders v in the metric's number format.
func (f *File) Format(m Metric, v float64) string { return f.format(m, v) }
