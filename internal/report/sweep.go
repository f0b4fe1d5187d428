package report

import (
	"cmp"
	"fmt"
	"html/template"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/crankshaft/crankshaft/internal/gate"
	"github.com/crankshaft/crankshaft/internal/results"
	"github.com/crankshaft/crankshaft/internal/sweep"
)

// SweepView is a sweep file's tables as crank sweep prints them, as HTML: each metric's variants
// against the baseline, the one-axis contrasts, the scaling curves and each variant's diagnosis.
type SweepView struct {
	Heading   string
	Machine   string
	Variants  []Summary // each variant's headline
	Metrics   []SweepTable
	Contrasts []ContrastRow
	Scaling   []ScalingTable
}

// SweepTable is one metric's table: every variant's mean and its comparison with the baseline.
type SweepTable struct {
	Metric, Service, Unit string
	Rows                  []SweepRow
	// Zero: every variant's mean is 0 (said in one line rather than a table of zeros).
	Zero bool
}

// SweepRow is one variant's cells of a metric.
type SweepRow struct {
	Variant, Mean, CV, N, Ratio, Verdict, P string
	Class                                   string
}

// ContrastRow is one metric of a pair of variants that differ on one axis.
type ContrastRow struct {
	Pair, Metric, Ratio, Verdict, P string
	First                           bool // the pair's first row (it names the pair)
	Class                           string
}

// ScalingTable is one scaling curve: RPS per core count, with its efficiency and gain.
type ScalingTable struct {
	Title, Conclusion string
	Rows              [][5]string // cpuSet, cores, RPS, efficiency, gain
}

// BuildSweep assembles the page of a sweep file: RPS over core counts for every cpuSet axis (with
// linear scaling from the smallest set drawn beside it), else each variant's mean RPS; the
// sweep's tables, contrasts, scaling and diagnoses as crank sweep prints them.
func BuildSweep(path string) (*Page, error) {
	f, err := sweep.ReadFile(path)
	if err != nil {
		return nil, err
	}
	pg := &Page{Title: fmt.Sprintf("crank sweep: %s (%s)", f.Scenario, labels([]string{path})[0]), ChartsHeading: "Scaling"}
	opts := gate.CompareOptions{}
	for _, c := range f.Curves(opts) {
		if len(c.Points) < 2 {
			continue
		}
		svg, err := scalingChart(c)
		if err != nil {
			return nil, err
		}
		title := "RPS over " + c.Axis.Key
		if c.Others != "" {
			title += " (" + c.Others + ")"
		}
		pg.Charts = append(pg.Charts, Chart{Title: title, SVG: svg, Legend: []LegendEntry{
			{Label: "measured", Swatch: swatch(plotutil.Color(0), nil)},
			{Label: fmt.Sprintf("linear from %s", plural(c.Points[0].Cores, "core")), Swatch: swatch(plotutil.Color(1), plotutil.Dashes(1))},
		}})
	}
	if len(pg.Charts) == 0 {
		svg, n, err := variantsChart(f)
		if err != nil {
			return nil, err
		}
		pg.ChartsHeading = "Variants"
		if n > 0 {
			pg.Charts = append(pg.Charts, Chart{Title: "Mean RPS per variant", SVG: svg, Full: true})
		} else {
			pg.Charts = append(pg.Charts, Chart{Title: "Requests per second", Note: "Requests per second: no variant has a result yet."})
		}
	}
	pg.Sweep = sweepView(f, opts)
	for _, vr := range f.Variants {
		d := Diagnosis{Label: vr.Name, NotRun: vr.Result == nil}
		if vr.Result != nil {
			d.Findings = vr.Result.JobResults.Diagnostics
		}
		pg.Diagnoses = append(pg.Diagnoses, d)
	}
	return pg, nil
}

// sweepView fills the sweep's tables with crank sweep's cells.
func sweepView(f *sweep.File, opts gate.CompareOptions) *SweepView {
	v := &SweepView{Heading: fmt.Sprintf("%d variants, %d of %d runs done (%d iteration(s) each); baseline %s",
		len(f.Variants), f.Done, f.Total(), f.Iterations, f.Baseline)}
	for _, vr := range f.Variants {
		if vr.Result == nil {
			v.Variants = append(v.Variants, Summary{Label: vr.Name, Verdict: "not run"})
			continue
		}
		s := summarize(vr.Name, vr.Result)
		if v.Machine == "" {
			v.Machine = s.Machine
		}
		v.Variants = append(v.Variants, s)
	}
	metrics := f.Metrics()
	base := f.BaselineIndex()
	vsBase := make([]map[sweep.Metric]gate.Comparison, len(f.Variants))
	for i := range f.Variants {
		if i != base {
			vsBase[i] = f.Compare(base, i, metrics, opts)
		}
	}
	for _, m := range metrics {
		t := SweepTable{Metric: m.Name, Service: m.Service, Unit: f.Unit(m), Zero: true}
		for i, vr := range f.Variants {
			s, ok := f.Summarize(i, m)
			t.Zero = t.Zero && ok && s.Mean == 0
			if !ok {
				t.Rows = append(t.Rows, SweepRow{Variant: vr.Name, Mean: "-", N: "0"})
				continue
			}
			row := SweepRow{Variant: vr.Name, Mean: f.Format(m, s.Mean), CV: fmt.Sprintf("%.1f%%", 100*s.CV),
				N: fmt.Sprint(s.N), Ratio: "1.00x", Verdict: "baseline"}
			if i != base {
				row.Ratio, row.Verdict, row.P = sweep.Cells(vsBase[i][m])
				row.Class = verdictClass(vsBase[i][m].Verdict)
			}
			t.Rows = append(t.Rows, row)
		}
		v.Metrics = append(v.Metrics, t)
	}
	for _, c := range f.Contrasts() {
		cmps := f.Compare(c.Base, c.Head, metrics, opts)
		pair := fmt.Sprintf("%s %s vs %s", c.Axis.Short(), f.Variants[c.Head].Value(c.Axis.Key), f.Variants[c.Base].Value(c.Axis.Key))
		if o := f.Variants[c.Head].Others(f.Axes, c.Axis.Key); o != "" {
			pair += " @ " + o
		}
		first := true
		for _, m := range metrics {
			cmp, ok := cmps[m]
			if !ok {
				continue
			}
			ratio, verdict, p := sweep.Cells(cmp)
			v.Contrasts = append(v.Contrasts, ContrastRow{Pair: pair, Metric: fmt.Sprintf("%s (%s)", m.Name, m.Service),
				Ratio: ratio, Verdict: verdict, P: p, First: first, Class: verdictClass(cmp.Verdict)})
			first = false
		}
	}
	for _, c := range f.Curves(opts) {
		t := ScalingTable{Title: "Scaling over " + c.Axis.Key}
		if c.Others != "" {
			t.Title += " @ " + c.Others
		}
		for _, p := range c.Points {
			gain := ""
			if p.HasGain {
				r, verdict, _ := sweep.Cells(p.Gain)
				gain = r + " " + verdict
			}
			t.Rows = append(t.Rows, [5]string{f.Variants[p.Variant].Value(c.Axis.Key), fmt.Sprint(p.Cores),
				results.Format(p.RPS, "n0"), fmt.Sprintf("%.0f%%", 100*p.Efficiency), gain})
		}
		t.Conclusion = c.Conclusion()
		v.Scaling = append(v.Scaling, t)
	}
	return v
}

// scalingChart draws a curve's mean RPS over its core counts, with linear scaling from its first
// point dashed beside it.
func scalingChart(c sweep.Curve) (template.HTML, error) {
	p := newPlot("cores", "requests/s")
	var got, ideal plotter.XYs
	var ticks []plot.Tick
	first := c.Points[0]
	for _, pt := range c.Points {
		ticks = append(ticks, plot.Tick{Value: float64(pt.Cores), Label: fmt.Sprint(pt.Cores)})
		got = append(got, plotter.XY{X: float64(pt.Cores), Y: pt.RPS})
		ideal = append(ideal, plotter.XY{X: float64(pt.Cores), Y: first.RPS * float64(pt.Cores) / float64(first.Cores)})
	}
	l, pts, err := plotter.NewLinePoints(got)
	if err != nil {
		return "", err
	}
	l.Color, pts.Color, l.Width = plotutil.Color(0), plotutil.Color(0), vg.Points(2)
	pts.Shape, pts.Radius = draw.CircleGlyph{}, vg.Points(3.5)
	p.Y.Max = max(first.RPS*float64(c.Points[len(c.Points)-1].Cores)/float64(first.Cores), slices.MaxFunc(c.Points,
		func(a, b sweep.Point) int { return cmp.Compare(a.RPS, b.RPS) }).RPS) * 1.08
	lin, err := plotter.NewLine(ideal)
	if err != nil {
		return "", err
	}
	lin.Color, lin.Dashes, lin.Width = plotutil.Color(1), plotutil.Dashes(1), vg.Points(1.5)
	p.Add(l, pts, lin)
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	pad := 0.04 * float64(c.Points[len(c.Points)-1].Cores-first.Cores) // the end points' glyphs whole
	p.X.Min, p.X.Max = float64(first.Cores)-pad, float64(c.Points[len(c.Points)-1].Cores)+pad
	return svgOf(p, halfSizes)
}

// variantsChart draws each variant's mean RPS as a bar; n is how many variants have one.
func variantsChart(f *sweep.File) (svg template.HTML, n int, err error) {
	var vals plotter.Values
	var names []string
	for i, v := range f.Variants {
		if mean, ok := f.MeanRPS(i); ok {
			vals, names = append(vals, mean), append(names, v.Name)
		}
	}
	if len(vals) == 0 {
		return "", 0, nil
	}
	p := newPlot("", "requests/s")
	bars, err := plotter.NewBarChart(vals, vg.Points(min(90, 600/float64(len(vals)))))
	if err != nil {
		return "", 0, err
	}
	bars.Color = plotutil.Color(0)
	p.Add(bars)
	p.NominalX(names...)
	p.X.Min, p.X.Max = -0.6, float64(len(vals))-0.4 // every bar whole, off the edges
	p.Y.Max = slices.Max(vals) * 1.08
	svg, err = svgOf(p, timelineSizes)
	return svg, len(vals), err
}
