package sweep

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/guptarohit/asciigraph"

	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/diagnose"
	"github.com/crankshaft/crankshaft/internal/gate"
)

// Point is one core count of a scaling curve.
type Point struct {
	Variant    int
	Cores      int
	RPS        float64 // mean over iterations, summed over load services
	Efficiency float64 // RPS per core relative to the smallest set's
	Gain       gate.Comparison
	HasGain    bool // Gain is this point's RPS against the previous point's
}

// Curve is RPS over core counts for one setting of the other axes.
type Curve struct {
	Axis   Axis
	Others string // "dispatch=shared"
	Points []Point
	// FlatAt is the core count after which more cores gave no significant RPS gain (0: it kept
	// scaling over the counts swept, or the curve cannot tell).
	FlatAt int
	// Busy names the curve's variants whose diagnosis says machine-busy: other work took the cores
	// the curve measures, so it draws no scaling claim (FlatAt 0; Conclusion says it cannot tell).
	Busy []string
	// NotServer is, when a step gained no significant RPS but its run's diagnosis says something
	// other than the server limited it (notServer), that variant's name and verdict: the step's
	// flatness is the load's or the machine's, so the curve draws no flattening claim (FlatAt 0).
	NotServer, NotServerKind string
	// NotServerAfter is the core count before that step.
	NotServerAfter int
}

// Conclusion is what the curve says of the scaling, in one sentence: it flattens, it still
// scales, or it cannot tell (variants that ran on a busy machine); "" for a single point.
func (c Curve) Conclusion() string {
	last := c.Points[len(c.Points)-1].Cores
	switch {
	case len(c.Busy) > 0:
		return fmt.Sprintf("cannot tell how RPS scales over the cores: %s ran on a busy machine (machine-busy: other work took cores the curve measures); "+
			"run the sweep on a quiet machine", strings.Join(c.Busy, ", "))
	case c.NotServer != "":
		return fmt.Sprintf("cannot tell whether RPS stops scaling at %s: %s gained no significant RPS, but its verdict (%s) does not say "+
			"the server limited it; the diagnosis below says what would tell", cores(c.NotServerAfter), c.NotServer, c.NotServerKind)
	case c.FlatAt > 0:
		return fmt.Sprintf("flattens at %s: more cores gave no significant RPS gain", cores(c.FlatAt))
	case len(c.Points) > 1:
		return fmt.Sprintf("still scaling at %s (each step gained RPS significantly)", cores(last))
	}
	return ""
}

// Curves returns a scaling curve per setting of the other axes, for every cpuSet axis.
func (f *File) Curves(opts gate.CompareOptions) []Curve {
	var out []Curve
	rps := f.rpsMetrics()
	for _, a := range f.Axes {
		if !a.IsCores() {
			continue
		}
		groups := map[string][]Point{}
		var order []string
		for i, v := range f.Variants {
			cpus, err := api.ParseCPUSet(v.Value(a.Key))
			mean, ok := f.meanRPS(i, rps)
			if err != nil || len(cpus) == 0 || !ok {
				continue
			}
			key := v.Others(f.Axes, a.Key)
			if _, seen := groups[key]; !seen {
				order = append(order, key)
			}
			groups[key] = append(groups[key], Point{Variant: i, Cores: len(cpus), RPS: mean})
		}
		for _, key := range order {
			out = append(out, f.curve(a, key, groups[key], rps, opts))
		}
	}
	return out
}

func (f *File) curve(a Axis, others string, pts []Point, rps []Metric, opts gate.CompareOptions) Curve {
	slices.SortStableFunc(pts, func(x, y Point) int { return cmp.Compare(x.Cores, y.Cores) })
	c := Curve{Axis: a, Others: others, Points: pts, Busy: f.busy(pts)}
	first := pts[0]
	for k := range c.Points {
		p := &c.Points[k]
		if first.RPS > 0 {
			p.Efficiency = (p.RPS / float64(p.Cores)) / (first.RPS / float64(first.Cores))
		}
		if k == 0 || len(rps) == 0 {
			continue
		}
		cmps := f.Compare(pts[k-1].Variant, p.Variant, rps[:1], opts)
		p.Gain, p.HasGain = cmps[rps[0]]
		if c.FlatAt == 0 && c.NotServer == "" && len(c.Busy) == 0 && p.HasGain && p.Gain.Verdict != gate.VerdictImproved {
			if kind := f.notServer(p.Variant); kind != "" {
				c.NotServer, c.NotServerKind, c.NotServerAfter = f.Variants[p.Variant].Name, kind, pts[k-1].Cores
				continue
			}
			c.FlatAt = pts[k-1].Cores
		}
	}
	return c
}

// busy names the points' variants whose diagnosis says machine-busy.
func (f *File) busy(pts []Point) []string {
	var out []string
	for _, p := range pts {
		if f.verdictOf(p.Variant, func(kind string) bool { return kind == diagnose.MachineBusy }) != "" {
			out = append(out, f.Variants[p.Variant].Name)
		}
	}
	return out
}

// limitedElsewhere says whether a verdict says a run's RPS was limited by something other than
// the server: its load, the machine load and server share, a load too light or capped at a rate,
// or answers that were not the server's work. RPS that stays flat under one of them says nothing
// of how the server scales.
func limitedElsewhere(kind string) bool {
	switch kind {
	case diagnose.MachineSaturated, diagnose.ClientBound, diagnose.Waiting, diagnose.Underloaded,
		diagnose.RateCapped, diagnose.ErrorBound, diagnose.Unserved:
		return true
	}
	return false
}

// notServer is the first verdict of variant i's diagnosis that says something other than the
// server limited its runs (limitedElsewhere), "" when none does.
func (f *File) notServer(i int) string { return f.verdictOf(i, limitedElsewhere) }

// verdictOf is the first kind of variant i's diagnosis that match accepts, "" when none does.
func (f *File) verdictOf(i int, match func(kind string) bool) string {
	r := f.Variants[i].Result
	if r == nil {
		return ""
	}
	for _, d := range r.JobResults.Diagnostics {
		if match(d.Kind) {
			return d.Kind
		}
	}
	return ""
}

// rpsMetrics are the RPS metrics among the sweep's.
func (f *File) rpsMetrics() []Metric {
	var out []Metric
	for _, m := range f.Metrics() {
		if strings.HasSuffix(m.Name, "/rps/mean") {
			out = append(out, m)
		}
	}
	return out
}

func (f *File) meanRPS(i int, rps []Metric) (float64, bool) {
	total, any := 0.0, false
	for _, m := range rps {
		if s, ok := f.Summarize(i, m); ok {
			total += s.Mean
			any = true
		}
	}
	return total, any
}

// Chart draws each curve's RPS over its core counts, one small chart per curve.
func (c Curve) Chart() string {
	if len(c.Points) < 2 {
		return ""
	}
	var ys []float64
	var cores []string
	for _, p := range c.Points {
		ys = append(ys, p.RPS)
		cores = append(cores, fmt.Sprint(p.Cores))
	}
	caption := fmt.Sprintf("RPS at %s cores", strings.Join(cores, ", "))
	if c.Others != "" {
		caption += " (" + c.Others + ")"
	}
	return plot(ys, 40, caption)
}

// VariantsChart draws the variants' mean RPS in sweep order (for sweeps without a cpuSet axis).
func (f *File) VariantsChart() string {
	rps := f.rpsMetrics()
	var ys []float64
	var names []string
	for i, v := range f.Variants {
		if mean, ok := f.meanRPS(i, rps); ok {
			ys = append(ys, mean)
			names = append(names, v.Name)
		}
	}
	if len(ys) < 2 {
		return ""
	}
	return plot(ys, 60, "mean RPS of "+strings.Join(names, " | "))
}

// plot draws ys from 0 up; asciigraph labels a bottom row just under 0 as "-0".
func plot(ys []float64, width int, caption string) string {
	g := asciigraph.Plot(ys, asciigraph.Height(6), asciigraph.Width(width), asciigraph.Precision(0),
		asciigraph.LowerBound(0), asciigraph.Caption(caption))
	return strings.Replace(g, " -0 ┤", "  0 ┤", 1)
}

// MeanRPS is variant i's mean RPS over its runs, summed over the load services; false when it
// has none.
func (f *File) MeanRPS(i int) (float64, bool) { return f.meanRPS(i, f.rpsMetrics()) }
