package capacity

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
)

// WriteTable prints the steps in the order they ran, then a chart of p99 latency and server CPU
// against the rate asked, the rates in increasing order.
func WriteTable(w io.Writer, r Result) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	cols := Columns()
	fmt.Fprint(tw, "step\t")
	for _, c := range cols {
		fmt.Fprint(tw, c.Heading+"\t")
	}
	fmt.Fprintln(tw)
	for i, s := range r.Steps {
		fmt.Fprintf(tw, "%d\t", i+1)
		for _, c := range cols {
			fmt.Fprint(tw, c.Cell(s)+"\t")
		}
		fmt.Fprintln(tw, "  "+s.Outcome()) // the last cell, not aligned: an outcome can be long
	}
	_ = tw.Flush()
	writeChart(w, r.Steps)
}

// chartWidth is the width of the longest bar.
const chartWidth = 40

// writeChart draws, for each rate asked, its p99 (scaled to the largest) and the server's CPU (of
// 100 %), one line each.
func writeChart(w io.Writer, steps []Step) {
	if len(steps) == 0 {
		return
	}
	sorted := slices.Clone(steps)
	slices.SortFunc(sorted, func(a, b Step) int { return int(a.Asked - b.Asked) })
	var maxP99 float64
	for _, s := range sorted {
		maxP99 = max(maxP99, s.Latency99)
	}
	fmt.Fprintf(w, "\nrate asked -> p99 (# of %.2f ms) and server CPU (= of 100 %%)\n", maxP99)
	for _, s := range sorted {
		p := 0
		if maxP99 > 0 {
			p = int(s.Latency99 / maxP99 * chartWidth)
		}
		c := min(int(s.ServerCPU/100*chartWidth), chartWidth)
		mark := " "
		if !s.Pass {
			mark = "x"
		}
		fmt.Fprintf(w, "%9.0f %s p99 %-*s %8.2f ms\n          cpu %-*s %5.0f %%\n", s.Asked, mark, chartWidth, strings.Repeat("#", p), s.Latency99,
			chartWidth, strings.Repeat("=", c), s.ServerCPU)
	}
}
