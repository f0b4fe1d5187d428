// Package termchart draws measurements over time in the terminal for crank's --chart: a one-line
// chart of each measurement's samples in the results tables (crank's bar or hex characters,
// scaled from 0 or from the lowest value), and a line chart of each service's requests/s
// timeline, drawn with asciigraph.
package termchart

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/guptarohit/asciigraph"

	"github.com/crankshaft/crankshaft/internal/measure"
	"github.com/crankshaft/crankshaft/internal/results"
)

// Options are crank's --chart-type (bar, hex) and --chart-scale (off, auto).
type Options struct {
	Type  string
	Scale string
}

// The characters of each chart type, from nothing to the highest value, as crank draws them.
var (
	barChars = []rune(" ▁▂▃▄▅▆▇█")
	hexChars = []rune(" 123456789ABCDEF")
)

// Column is the tables' chart column: each measurement's samples on the service's first endpoint.
func Column(o Options) results.Column {
	chars := barChars
	if o.Type == "hex" {
		chars = hexChars
	}
	return func(_ string, jr *results.JobResult, name string) string {
		if len(jr.Measurements) == 0 {
			return ""
		}
		var vals []float64
		for _, m := range jr.Measurements[0] {
			if m.Name == name {
				vals = append(vals, m.Value)
			}
		}
		return Line(vals, chars, o.Scale == "auto")
	}
}

// Line draws values one character each. Zero is blank; the scale starts at 0, or with auto at
// the lowest value other than 0. Fewer than two values, or all equal, draw nothing.
func Line(vals []float64, chars []rune, auto bool) string {
	if len(vals) < 2 {
		return ""
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range vals {
		if v != 0 {
			lo = min(lo, v)
		}
		hi = max(hi, v)
	}
	base := 0.0
	if auto && !math.IsInf(lo, 1) {
		base = lo
	}
	step := (hi - base) / float64(len(chars)-1)
	if step <= 0 || math.IsNaN(step) || math.IsInf(step, 0) {
		return ""
	}
	out := make([]rune, len(vals))
	for i, v := range vals {
		k := 0
		if v != 0 {
			k = int(math.Round((v - base) / step))
		}
		if k < 0 || k >= len(chars) {
			return ""
		}
		out[i] = chars[k]
	}
	return string(out)
}

// serverRPS is the apps' request counter read per second.
const serverRPS = "runtime-counter/requests-per-second"

// Timelines draws, for each service that has one, its requests/s timeline (the server's
// per-second counter, or the load's own timeline) on its first endpoint.
func Timelines(w io.Writer, r *results.Result, services []string, o Options) {
	for _, svc := range services {
		jr := r.JobResults.Jobs[svc]
		if jr == nil || len(jr.Measurements) == 0 {
			continue
		}
		for _, name := range []string{serverRPS, measure.RPS} {
			var vals []float64
			for _, m := range jr.Measurements[0] {
				if m.Name == name {
					vals = append(vals, m.Value)
				}
			}
			if len(vals) < 2 {
				continue
			}
			opts := []asciigraph.Option{asciigraph.Height(10), asciigraph.Width(max(len(vals), 60)), asciigraph.Precision(0),
				asciigraph.Caption(fmt.Sprintf("%s: %s (req/s), %d samples", svc, name, len(vals)))}
			if o.Scale != "auto" {
				opts = append(opts, asciigraph.LowerBound(0))
			}
			fmt.Fprintf(w, "\n%s\n", strings.TrimRight(asciigraph.Plot(vals, opts...), "\n"))
			break
		}
	}
}
