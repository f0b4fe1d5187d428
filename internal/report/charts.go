package report

import (
	"bytes"
	"fmt"
	"html/template"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/measure"
	"github.com/crankshaft/crankshaft/internal/results"
)

// serverRPS is the apps' request counter read per second.
const serverRPS = "runtime-counter/requests-per-second"

// chartSpec is one chart: the measurements it draws (the first a job has, per job), its unit.
type chartSpec struct {
	Title string
	Unit  string
	Names []string
}

// charts are the timelines a report draws, when some run has them sampled.
var charts = []chartSpec{
	{"Requests per second", measure.UnitRPS, []string{serverRPS, measure.RPS, measure.BuiltinRPSPerSecond}},
	{"CPU", measure.UnitPercent, []string{measure.CPU}},
	{"Lock contention", measure.UnitMsPerSec, []string{measure.LockContention}},
	{"Exceptions", measure.UnitPerSec, []string{measure.ExceptionCount}},
	{"Latency p99", measure.UnitMs, []string{measure.Latency99}},
	{"Latency p50", measure.UnitMs, []string{measure.Latency50}},
}

// Series is one line: a run's service (on one endpoint) over time, in seconds from its run's start.
type Series struct {
	Label  string
	Run    int
	Points plotter.XYs
}

// Chart is one rendered chart and what it holds.
type Chart struct {
	Title  string
	Series []Series
	SVG    template.HTML
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
				out = append(out, Series{Label: label, Run: ri, Points: pts})
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

// render draws the series with gonum/plot as an inline SVG: one colour per run, one dash
// pattern per service of a run.
func render(spec chartSpec, series []Series) (template.HTML, error) {
	p := newPlot(spec.Title, "seconds from the measured start", spec.Unit)
	p.Legend.Left = false
	perRun := map[int]int{}
	for _, s := range series {
		l, err := plotter.NewLine(s.Points)
		if err != nil {
			return "", fmt.Errorf("%s: %s: %w", spec.Title, s.Label, err)
		}
		l.Color = plotutil.Color(s.Run)
		l.Width = vg.Points(1.5)
		l.Dashes = plotutil.Dashes(perRun[s.Run])
		perRun[s.Run]++
		p.Add(l)
		p.Legend.Add(s.Label, l)
	}
	return svgOf(p)
}

// newPlot is a chart with the report's look: a grid, the y axis from 0 with thousands
// separators, the legend at the top.
func newPlot(title, x, y string) *plot.Plot {
	p := plot.New()
	p.Title.Text, p.X.Label.Text, p.Y.Label.Text = title, x, y
	p.Y.Min = 0
	p.Y.Tick.Marker = thousands{}
	p.Add(plotter.NewGrid())
	p.Legend.Top, p.Legend.Left = true, true
	return p
}

// svgOf draws the plot as an inline SVG.
func svgOf(p *plot.Plot) (template.HTML, error) {
	c := vgsvg.New(20*vg.Centimeter, 9*vg.Centimeter)
	p.Draw(draw.New(c))
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		return "", err
	}
	svg := b.String()
	if i := strings.Index(svg, "<svg"); i > 0 {
		svg = svg[i:] // inline: no XML declaration or doctype
	}
	return template.HTML(svg), nil // gonum's own output, not user text
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
