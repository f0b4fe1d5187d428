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
	fmt.Fprintln(tw, "step\tasked req/s\tdone req/s\tp50 ms\tp90 ms\tp99 ms\terrors %\tserver CPU %\tcontention ms/s\texceptions/s\t\t")
	for i, s := range r.Steps {
		fmt.Fprintf(tw, "%d\t%.0f\t%.0f\t%.2f\t%.2f\t%.2f\t%.2f\t%.0f\t%.2f\t%.2f\t%s\t\n", i+1, s.Asked, s.Achieved,
			s.Latency50, s.Latency90, s.Latency99, s.ErrorRate, s.ServerCPU, s.LockContention, s.Exceptions, verdictWord(s))
	}
	_ = tw.Flush()
	writeChart(w, r.Steps)
}

func verdictWord(s Step) string {
	switch {
	case s.Repeated:
		return "FAIL (measured again)"
	case s.Repeat && s.Pass:
		return "pass (repeat)"
	case s.Repeat:
		return "FAIL (confirmed)"
	case s.Pass:
		return "pass"
	case s.FellBehind:
		return "FAIL (fell behind)"
	}
	return "FAIL"
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
