package report

import (
	"bytes"
	"fmt"
	"html/template"
	"image/color"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	plottext "gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/measure"
	"github.com/crankshaft/crankshaft/internal/results"
)

// chartSpec is one chart: the measurements it draws (the first a job has, per job), its unit.
// Charts of one Group that no run has are said missing in one line.
type chartSpec struct {
	Title string
	Unit  string
	Names []string
	Group string
}

// latencyGroup is the latency charts' group: what the load cannot report is said once.
const latencyGroup = "Latency over time"

// charts are the timelines a report draws, when some run has them sampled.
var charts = []chartSpec{
	{"Requests per second", measure.UnitRPS, []string{measure.RequestsPerSecond, measure.RPS, measure.BuiltinRPSPerSecond}, ""},
	{"CPU", measure.UnitPercent, []string{measure.CPU}, ""},
	{"Latency p99", measure.UnitMs, []string{measure.Latency99, measure.BuiltinLatency99PerSecond}, latencyGroup},
	{"Latency p50", measure.UnitMs, []string{measure.Latency50, measure.BuiltinLatency50PerSecond}, latencyGroup},
	{"Lock contention", measure.UnitMsPerSec, []string{measure.LockContention}, ""},
	{"Exceptions", measure.UnitPerSec, []string{measure.ExceptionCount}, ""},
}

// Series is one line: a run's service (on one endpoint) over time, in seconds from its run's start.
type Series struct {
	Label  string
	Run    int
	Dash   int // the dash pattern's index among the run's lines
	Points plotter.XYs
}

// Chart is one rendered chart and what it holds; a chart with nothing to draw (no run sampled it,
// or every sample is 0) is Note, one line of text instead of a flat or empty plot.
type Chart struct {
	Title  string
	Series []Series
	SVG    template.HTML
	Legend []LegendEntry
	// Absent says, under a chart, which runs have no line and why ("wrk reports latency once").
	Absent []string
	Note   string
	// Zero: the Note says every sample is 0 (a result, not something missing).
	Zero bool
	// Full: the chart spans the page's width where charts go two a row (a sweep's variants).
	Full bool
}

// LegendEntry is one line of a chart's legend, drawn beside the plot rather than over it.
type LegendEntry struct {
	Label   string
	Swatch  template.HTML
	Samples int // the line's samples (0: not a timeline)
}

// runStart is where a run's timelines are aligned: its first measured sample (after the
// warm-up), else its first sample. Build and start times, taken once, do not count.
func runStart(r *results.Result) time.Time {
	var first, measured time.Time
	for _, jr := range r.JobResults.Jobs {
		for _, tl := range jr.Measurements {
			for _, m := range tl {
				if m.Name == measure.BuildTime || m.Name == measure.StartTime {
					continue
				}
				if first.IsZero() || m.Timestamp.Before(first) {
					first = m.Timestamp
				}
				if m.Measured() && (measured.IsZero() || m.Timestamp.Before(measured)) {
					measured = m.Timestamp
				}
			}
		}
	}
	if !measured.IsZero() {
		return measured
	}
	return first
}

// seriesFor returns the lines of one chart: for each run, service and endpoint, the samples of
// the first of the chart's measurements that it sampled more than once.
func seriesFor(spec chartSpec, runs []Run) []Series {
	var out []Series
	for ri, run := range runs {
		start := runStart(run.Result)
		dash := 0
		for _, svc := range run.Services {
			jr := run.Result.JobResults.Jobs[svc]
			var each []plotter.XYs
			for ei, tl := range jr.Measurements {
				pts := firstSampled(tl, spec.Names, start)
				if len(pts) < 2 {
					continue
				}
				label := fmt.Sprintf("%s: %s", run.Label, svc)
				switch {
				case len(jr.Generators) == len(jr.Measurements):
					label += " on " + jr.Generators[ei].Endpoint
				case len(jr.Measurements) > 1:
					label += fmt.Sprintf(" #%d", ei+1)
				}
				out = append(out, Series{Label: label, Run: ri, Dash: dash, Points: pts})
				dash++
				each = append(each, pts)
			}
			if total := sumPerSecond(each); spec.Unit == measure.UnitRPS && len(jr.Generators) > 1 && len(each) > 1 && len(total) >= 2 {
				out = append(out, Series{Label: fmt.Sprintf("%s: %s, all generators", run.Label, svc), Run: ri, Points: total})
			}
		}
	}
	return out
}

// sumPerSecond adds the lines second by second (their samples rounded to the nearest second from
// the start: a split load's generators share one start), over the seconds every line has.
func sumPerSecond(lines []plotter.XYs) plotter.XYs {
	sums, counts := map[int]float64{}, map[int]int{}
	for _, l := range lines {
		for _, p := range l {
			sec := int(math.Round(p.X))
			sums[sec] += p.Y
			counts[sec]++
		}
	}
	var out plotter.XYs
	for _, sec := range slices.Sorted(maps.Keys(sums)) {
		if counts[sec] == len(lines) {
			out = append(out, plotter.XY{X: float64(sec), Y: sums[sec]})
		}
	}
	return out
}

func firstSampled(tl []api.Measurement, names []string, start time.Time) plotter.XYs {
	for _, name := range names {
		var pts plotter.XYs
		for _, m := range tl {
			if m.Name == name {
				pts = append(pts, plotter.XY{X: m.Timestamp.Sub(start).Seconds(), Y: m.Value})
			}
		}
		if len(pts) >= 2 {
			return pts
		}
	}
	return nil
}

// allZero tells whether every sample of every line is 0.
func allZero(series []Series) bool {
	for _, s := range series {
		for _, p := range s.Points {
			if p.Y != 0 {
				return false
			}
		}
	}
	return true
}

// span is the seconds every timeline of the page covers: the charts share their x axis, so one
// moment is at one place down the page.
type span struct{ min, max float64 }

// timeSpan is the span of the charts' series.
func timeSpan(runs []Run) span {
	var sp span
	first := true
	for _, spec := range charts {
		for _, s := range seriesFor(spec, runs) {
			for _, p := range s.Points {
				if first {
					sp, first = span{p.X, p.X}, false
				}
				sp.min, sp.max = min(sp.min, p.X), max(sp.max, p.X)
			}
		}
	}
	return sp
}

// buildChart is one chart of the runs over the span: drawn, or said in one line when there is
// nothing to draw.
func buildChart(spec chartSpec, runs []Run, sp span) (Chart, error) {
	c := Chart{Title: spec.Title, Series: seriesFor(spec, runs)}
	if len(c.Series) == 0 {
		c.Note = spec.Title + ": no run sampled it more than once."
		if spec.Group == latencyGroup {
			c.Note = latencyGroup + ": not available: " + strings.Join(noLatency(runs), "; ") + "."
		}
		return c, nil
	}
	if allZero(c.Series) {
		n := 0
		for _, s := range c.Series {
			n += len(s.Points)
		}
		c.Note = fmt.Sprintf("%s: 0 throughout (%d samples of %s).", spec.Title, n, plural(len(c.Series), "line"))
		c.Zero = true
		return c, nil
	}
	if without := withoutLines(runs, c.Series); spec.Group == latencyGroup && len(without) > 0 {
		c.Absent = noLatency(without)
	}
	svg, err := render(spec, c.Series, sp)
	if err != nil {
		return Chart{}, err
	}
	c.SVG = svg
	for _, s := range c.Series {
		c.Legend = append(c.Legend, LegendEntry{Label: s.Label, Swatch: swatch(plotutil.Color(s.Run), plotutil.Dashes(s.Dash)),
			Samples: len(s.Points)})
	}
	return c, nil
}

// withoutLines are the runs none of whose services has a line in the series.
func withoutLines(runs []Run, series []Series) []Run {
	has := map[int]bool{}
	for _, s := range series {
		has[s.Run] = true
	}
	var out []Run
	for i, r := range runs {
		if !has[i] {
			out = append(out, r)
		}
	}
	return out
}

// noLatency says why runs have no latency over time: which load tool reports it once, for the
// whole run, and which load does (the built-in generator, every second).
func noLatency(runs []Run) []string {
	var out []string
	for _, run := range runs {
		for _, svc := range run.Services {
			jr := run.Result.JobResults.Jobs[svc]
			if !isLoad(jr) {
				continue
			}
			tool, _ := jr.Environment["job"].(string)
			if tool == "" {
				tool = "its tool"
			}
			what := fmt.Sprintf("%s (%s) reports latency once, for the whole run", svc, tool)
			if len(runs) > 1 {
				what = run.Label + ": " + what
			}
			out = append(out, what)
		}
	}
	if len(out) == 0 {
		return []string{"no run has a load service"}
	}
	return append(out, "the built-in generator (--load.job builtin) reports it every second")
}

// size is a drawing's width and height. The page scales a drawing to its width, so the size sets
// the text against the plot: each chart is drawn twice, wide for a wide window (about 15 px text
// at 1,300 px) and narrow for a narrow one or paper (about 14 px at 750 px), and the page shows
// the one that fits.
type size struct{ w, h vg.Length }

var (
	timelineSizes = [2]size{{30 * vg.Centimeter, 9.5 * vg.Centimeter}, {19 * vg.Centimeter, 9 * vg.Centimeter}}
	halfSizes     = [2]size{{17 * vg.Centimeter, 9 * vg.Centimeter}, {19 * vg.Centimeter, 9 * vg.Centimeter}}
)

// render draws the series with gonum/plot as an inline SVG: one colour per run, one dash
// pattern per service of a run; the legend is the page's, beside the drawing.
func render(spec chartSpec, series []Series, sp span) (template.HTML, error) {
	p := newPlot("seconds from the measured start", spec.Unit)
	p.X.Min, p.X.Max = sp.min, sp.max
	top := 0.0
	for _, s := range series {
		for _, pt := range s.Points {
			top = max(top, pt.Y)
		}
	}
	p.Y.Max = top * 1.08 // the highest sample below the top edge
	for _, s := range series {
		l, err := plotter.NewLine(s.Points)
		if err != nil {
			return "", fmt.Errorf("%s: %s: %w", spec.Title, s.Label, err)
		}
		l.Color = plotutil.Color(s.Run)
		l.Width = vg.Points(2)
		l.Dashes = plotutil.Dashes(s.Dash)
		p.Add(l)
	}
	return svgOf(p, timelineSizes)
}

// newPlot is a chart with the report's look: a sans-serif face, a grid, the y axis from 0 with
// thousands separators. Its title is the page's heading above it.
func newPlot(x, y string) *plot.Plot {
	p := plot.New()
	p.X.Label.Text, p.Y.Label.Text = x, y
	for _, f := range []*plottext.Style{&p.X.Label.TextStyle, &p.Y.Label.TextStyle, &p.X.Tick.Label, &p.Y.Tick.Label} {
		f.Font.Variant = "Sans"
	}
	p.Y.Min = 0
	p.Y.Tick.Marker = thousands{}
	p.Add(plotter.NewGrid())
	return p
}

// svgOf draws the plot as two inline SVGs that scale to the page's width (their viewBox): the
// wide one (class "plot wide") and the narrow one (class "plot narrow").
func svgOf(p *plot.Plot, sizes [2]size) (template.HTML, error) {
	var out strings.Builder
	for i, class := range []string{"plot wide", "plot narrow"} {
		c := vgsvg.New(sizes[i].w, sizes[i].h)
		p.Draw(draw.New(c))
		var b bytes.Buffer
		if _, err := c.WriteTo(&b); err != nil {
			return "", err
		}
		svg := b.String()
		i := strings.Index(svg, "<svg")
		if i < 0 {
			return "", fmt.Errorf("gonum/plot wrote no <svg> element")
		}
		out.WriteString(`<svg class="` + class + `"` + svg[i+len("<svg"):]) // inline: no XML declaration
	}
	return template.HTML(out.String()), nil // gonum's own output, not user text
}

// swatch is a legend's sample of a line: its colour and dash pattern.
func swatch(c color.Color, dashes []vg.Length) template.HTML {
	r, g, b, _ := c.RGBA()
	dash := ""
	if len(dashes) > 0 {
		parts := make([]string, len(dashes))
		for i, d := range dashes {
			parts[i] = fmt.Sprintf("%.0f", d.Points()*1.5)
		}
		dash = ";stroke-dasharray:" + strings.Join(parts, ",")
	}
	return template.HTML(fmt.Sprintf(`<svg class="swatch" width="36" height="10" aria-hidden="true">`+
		`<line x1="0" y1="5" x2="36" y2="5" style="stroke:#%02x%02x%02x;stroke-width:2.5%s"/></svg>`,
		r>>8, g>>8, b>>8, dash)) // numbers only
}

// thousands labels the default ticks with thousands separators (1,000,000 rather than 1e+06).
type thousands struct{}

func (thousands) Ticks(min, max float64) []plot.Tick {
	ts := plot.DefaultTicks{}.Ticks(min, max)
	for i := range ts {
		if ts[i].Label != "" {
			ts[i].Label = results.Format(ts[i].Value, "n0")
			if max-min < 10 {
				ts[i].Label = results.Format(ts[i].Value, "n1")
			}
		}
	}
	return ts
}
