package report

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/crankshaft/crankshaft/internal/capacity"
	"github.com/crankshaft/crankshaft/internal/measure"
)

// CapacityView is a crank capacity search in a result file: the answer, every step with the
// terminal table's cells (capacity.Columns: the catalog's units and rounding), and p99 and the
// servers' CPU against the rate asked.
type CapacityView struct {
	Label string // the file's, with the variant in a matrix
	// Rate is the capacity as the table writes a rate ("" when no rate passed); FailedAt the
	// first failing rate above it ("" when none failed), FailedSLO what failed there.
	Rate, FailedAt       string
	FailedSLO, SLOs      []string
	VerdictKind, Verdict string
	Stopped              string
	// CannotTell is why the search cannot tell the capacity ("" when it can), WouldTell what would,
	// and Bracket the capacity's bracket in words (capacity.Result.Bracket).
	CannotTell, WouldTell, Bracket string
	Headings                       []string
	Rows                           []CapacityRow
	Charts                         []Chart
}

// CapacityRow is one step as the terminal table writes it.
type CapacityRow struct {
	Step    int
	Cells   []string
	Outcome string
	Pass    bool
}

// capacityViews reads a result file's "capacity" (one search, or a matrix's "variants") into views.
func capacityViews(label string, raw json.RawMessage) ([]CapacityView, error) {
	searches, _, err := capacity.Read(raw)
	if err != nil {
		return nil, err
	}
	var out []CapacityView
	for _, c := range searches {
		name := label
		if c.Variant != "" {
			name += ": " + c.Variant
		}
		v, err := capacityView(name, c.Result)
		if err != nil {
			return nil, fmt.Errorf("capacity %s: %w", name, err)
		}
		out = append(out, v)
	}
	return out, nil
}

func capacityView(label string, r capacity.Result) (CapacityView, error) {
	v := CapacityView{Label: label, FailedSLO: r.FailedSLO, SLOs: r.SLOs, VerdictKind: r.VerdictKind, Verdict: r.Verdict, Stopped: r.Stopped,
		CannotTell: r.Inconclusive, WouldTell: r.WouldTell, Bracket: r.Bracket()}
	if r.Rate > 0 {
		v.Rate = capacity.Rate(r.Rate)
	}
	if r.FailedAt > 0 {
		v.FailedAt = capacity.Rate(r.FailedAt)
	}
	cols := capacity.Columns()
	for _, c := range cols {
		v.Headings = append(v.Headings, c.Heading)
	}
	for i, s := range r.Steps {
		row := CapacityRow{Step: i + 1, Outcome: s.Outcome(), Pass: s.Pass}
		for _, c := range cols {
			row.Cells = append(row.Cells, c.Cell(s))
		}
		v.Rows = append(v.Rows, row)
	}
	if len(r.Steps) == 0 {
		return v, nil
	}
	for _, name := range []string{measure.Latency99, measure.CPU} {
		c, err := capacityChart(r.Steps, name)
		if err != nil {
			return v, err
		}
		v.Charts = append(v.Charts, c)
	}
	return v, nil
}

// capacityChart draws one column of the steps against the rate asked, the rates in increasing
// order: a line through every step, the failed steps marked with a cross.
func capacityChart(steps []capacity.Step, name string) (Chart, error) {
	i := slices.IndexFunc(capacity.Columns(), func(c capacity.Column) bool { return c.Name == name })
	col := capacity.Columns()[i]
	rate := capacity.Columns()[0]
	sorted := slices.Clone(steps)
	slices.SortStableFunc(sorted, func(a, b capacity.Step) int { return cmp.Compare(a.Asked, b.Asked) })
	p := newPlot(rate.Label+" ("+rate.Unit+")", col.Label+" ("+col.Unit+")")
	var all, failed plotter.XYs
	top := 0.0
	for _, s := range sorted {
		pt := plotter.XY{X: s.Asked, Y: col.Value(s)}
		all = append(all, pt)
		if !s.Pass {
			failed = append(failed, pt)
		}
		top = max(top, pt.Y)
	}
	l, pts, err := plotter.NewLinePoints(all)
	if err != nil {
		return Chart{}, err
	}
	l.Color, pts.Color, l.Width = plotutil.Color(0), plotutil.Color(0), vg.Points(2)
	pts.Shape, pts.Radius = draw.CircleGlyph{}, vg.Points(3)
	p.Add(l, pts)
	legend := []LegendEntry{{Label: "each step", Swatch: swatch(plotutil.Color(0), nil)}}
	if len(failed) > 0 {
		x, err := plotter.NewScatter(failed)
		if err != nil {
			return Chart{}, err
		}
		x.Shape, x.Color, x.Radius = draw.CrossGlyph{}, plotutil.Color(1), vg.Points(6)
		p.Add(x)
		legend = append(legend, LegendEntry{Label: "failed (×)", Swatch: swatch(plotutil.Color(1), nil)})
	}
	if name == measure.CPU {
		top = max(top, 100)
	}
	p.Y.Max = max(top*1.08, 1)
	lo, hi := sorted[0].Asked, sorted[len(sorted)-1].Asked
	pad := max(0.04*(hi-lo), 1)
	p.X.Min, p.X.Max = max(lo-pad, 0), hi+pad
	svg, err := svgOf(p, halfSizes)
	if err != nil {
		return Chart{}, err
	}
	return Chart{Title: fmt.Sprintf("%s against the rate asked", col.Heading), SVG: svg, Legend: legend}, nil
}
