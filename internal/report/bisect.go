package report

import (
	"cmp"
	"encoding/json"
	"fmt"
	"image/color"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/crankshaft/crankshaft/internal/bisect"
)

// BisectView is a crank bisect search in a result file: the figure, the ends, every commit
// measured with the cells crank bisect prints (bisect.Row: the catalog's unit and rounding), the
// answer, and the figure of each commit in the history's order.
type BisectView struct {
	Label, Metric string
	// Measured is how the commits of a round ran (bisect.Result.Measured).
	Measured  string
	Good, Bad bisect.Commit
	// Answer is crank bisect's last line; Candidates the commits it names when skipped commits
	// leave several. FirstBad and NoneWorse colour it; Stopped: the search ended without one.
	Answer     string
	Candidates []string
	FirstBad   string
	NoneWorse  bool
	Stopped    bool
	// Grew is what grew from the last good commit to the first bad, as crank bisect prints it
	// (bisect.WriteGrowths), a line each; empty when the search recorded no profiles.
	Grew  []string
	Rows  []BisectRow
	Chart *Chart
}

// BisectRow is one commit of the path as crank bisect prints it.
type BisectRow struct {
	bisect.Row
	Commit string // short hash and subject
	// FirstBad marks the answer's commit.
	FirstBad bool
}

// bisectView reads a result file's "bisect".
func bisectView(label string, raw json.RawMessage) (BisectView, error) {
	var r bisect.Result
	if err := json.Unmarshal(raw, &r); err != nil {
		return BisectView{}, fmt.Errorf("bisect: %w", err)
	}
	v := BisectView{Label: label, Metric: r.Metric, Measured: r.Measured(), Good: r.Good, Bad: r.Bad, FirstBad: r.FirstBad, NoneWorse: r.NoneWorse,
		Stopped: r.Stopped != ""}
	v.Answer, v.Candidates = r.Answer()
	var grew strings.Builder
	bisect.WriteGrowths(&grew, r.Grew)
	if grew.Len() > 0 {
		v.Grew = strings.Split(strings.TrimSuffix(grew.String(), "\n"), "\n")
	}
	for _, row := range r.Path() {
		c := row.Step.Commit
		v.Rows = append(v.Rows, BisectRow{Row: row, Commit: c.Short() + " " + c.Subject, FirstBad: c.SHA != "" && c.SHA == r.FirstBad})
	}
	c, err := bisectChart(r)
	if err != nil {
		return v, fmt.Errorf("bisect: %w", err)
	}
	v.Chart = c
	return v, nil
}

// bisectChart draws each measured commit's mean with its 95 % interval, in the history's order
// (evenly spaced, each named by its short hash), the first bad commit crossed; nil when fewer
// than two commits have a figure.
func bisectChart(r bisect.Result) (*Chart, error) {
	seen := map[string]bool{}
	var steps []bisect.Step
	var skipped []string
	for _, s := range append([]bisect.Step{r.Baseline, r.BadEnd}, r.Steps...) {
		if s.Commit.SHA == "" || seen[s.Commit.SHA] {
			continue
		}
		seen[s.Commit.SHA] = true
		switch {
		case s.Verdict == bisect.Skip:
			skipped = append(skipped, s.Commit.Short()+" did not build or run")
		case s.Iterations == 0 && s.Dropped > 0: // every round under steal once run again: no figure, not a 0
			skipped = append(skipped, fmt.Sprintf("%s: no round counted (%d under steal once run again)", s.Commit.Short(), s.Dropped))
		default:
			steps = append(steps, s)
		}
	}
	if len(steps) < 2 {
		return nil, nil
	}
	slices.SortStableFunc(steps, func(a, b bisect.Step) int { return cmp.Compare(a.Position, b.Position) })
	fig := bisect.FigureOf(r.Metric)
	p := newPlot("commits in the history's order", fig.Name+" ("+fig.Unit+")")
	if fig.Unit == "" {
		p.Y.Label.Text = fig.Name
	}
	var pts plotter.XYs
	var errs plotter.YErrors
	var names []string
	var first plotter.XYs
	top := 0.0
	for i, s := range steps {
		pt := plotter.XY{X: float64(i), Y: s.Mean}
		pts, errs = append(pts, pt), append(errs, struct{ Low, High float64 }{s.HalfWidth, s.HalfWidth})
		names = append(names, s.Commit.Short())
		if s.Commit.SHA == r.FirstBad {
			first = append(first, pt)
		}
		top = max(top, s.Mean+s.HalfWidth)
	}
	bars, err := plotter.NewYErrorBars(struct {
		plotter.XYs
		plotter.YErrors
	}{pts, errs})
	if err != nil {
		return nil, err
	}
	bars.Color, bars.Width, bars.CapWidth = plotutil.Color(0), vg.Points(1.5), vg.Points(8)
	l, dots, err := plotter.NewLinePoints(pts)
	if err != nil {
		return nil, err
	}
	l.Color, dots.Color, l.Width, l.Dashes = plotutil.Color(0), plotutil.Color(0), vg.Points(1), plotutil.Dashes(1)
	dots.Shape, dots.Radius = draw.CircleGlyph{}, vg.Points(3)
	p.Add(l, bars, dots)
	legend := []LegendEntry{{Label: "each commit: mean ± 95 % interval", Swatch: swatch(plotutil.Color(0), nil)}}
	if len(first) > 0 {
		x, err := plotter.NewScatter(first)
		if err != nil {
			return nil, err
		}
		x.Shape, x.Color, x.Radius = draw.CrossGlyph{}, color.Black, vg.Points(9)
		p.Add(x)
		legend = append(legend, LegendEntry{Label: "first bad commit (×)", Swatch: swatch(color.Black, nil)})
	}
	p.NominalX(names...)
	p.X.Min, p.X.Max = -0.5, float64(len(names))-0.5
	p.X.Tick.Label.Rotation = math.Pi / 6
	p.X.Tick.Label.XAlign, p.X.Tick.Label.YAlign = draw.XRight, draw.YCenter
	p.Y.Max = max(top*1.08, 1)
	svg, err := svgOf(p, halfSizes)
	if err != nil {
		return nil, err
	}
	return &Chart{Title: r.Metric + " by commit", SVG: svg, Legend: legend, Absent: skipped}, nil
}
