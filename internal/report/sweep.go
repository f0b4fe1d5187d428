package report

import (
	"bytes"
	"fmt"
	"html/template"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/crankshaft/crankshaft/internal/gate"
	"github.com/crankshaft/crankshaft/internal/sweep"
)

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
		pg.Charts = append(pg.Charts, Chart{Title: title, SVG: svg})
	}
	if len(pg.Charts) == 0 {
		svg, n, err := variantsChart(f)
		if err != nil {
			return nil, err
		}
		if n > 0 {
			pg.ChartsHeading = "Variants"
			pg.Charts = append(pg.Charts, Chart{Title: "Mean RPS per variant", SVG: svg})
		} else {
			pg.Missing = append(pg.Missing, "Requests per second")
		}
	}
	var b bytes.Buffer
	if err := f.WriteReport(&b, opts); err != nil {
		return nil, err
	}
	pg.Sweep = b.String()
	return pg, nil
}

// scalingChart draws a curve's mean RPS over its core counts, with linear scaling from its first
// point dashed beside it.
func scalingChart(c sweep.Curve) (template.HTML, error) {
	p := newPlot("Requests per second over cores", "cores", "requests/s")
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
	l.Color, pts.Color, l.Width = plotutil.Color(0), plotutil.Color(0), vg.Points(1.5)
	lin, err := plotter.NewLine(ideal)
	if err != nil {
		return "", err
	}
	lin.Color, lin.Dashes = plotutil.Color(1), plotutil.Dashes(1)
	p.Add(l, pts, lin)
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	p.Legend.Add("measured", l, pts)
	p.Legend.Add(fmt.Sprintf("linear from %d core(s)", first.Cores), lin)
	return svgOf(p)
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
	p := newPlot("Mean requests per second", "", "requests/s")
	bars, err := plotter.NewBarChart(vals, vg.Points(24))
	if err != nil {
		return "", 0, err
	}
	bars.Color = plotutil.Color(0)
	p.Add(bars)
	p.NominalX(names...)
	svg, err = svgOf(p)
	return svg, len(vals), err
}
