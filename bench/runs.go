package main

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/crankshaft/crankshaft/internal/stats"
)

// runFigure is one bench run of a row: the medians of the run's rounds, the subject's CPU per
// request (us) and its per-round ratio to the reference (NaN when no round had both).
type runFigure struct {
	Run               int
	Rounds            int // the rounds of the run the figures use
	US, Ratio, Kernel float64
}

// byRun is a row's rounds summarized by bench run, in run order: the unit of replication, since
// the rounds of one run share the servers' processes and their state (heap, caches, the
// scheduler's placement), which moves a server's cost by 15-30 % from one start to the next
// (bench/notes.md).
func byRun(rounds []roundFigure) []runFigure {
	var runs []int
	for _, f := range rounds {
		if !slices.Contains(runs, f.Run) {
			runs = append(runs, f.Run)
		}
	}
	slices.Sort(runs)
	out := make([]runFigure, 0, len(runs))
	for _, run := range runs {
		var us, ratios, kernel []float64
		for _, f := range rounds {
			if f.Run != run {
				continue
			}
			us = append(us, f.US)
			if !math.IsNaN(f.Ratio) {
				ratios = append(ratios, f.Ratio)
			}
			if !math.IsNaN(f.Kernel) {
				kernel = append(kernel, f.Kernel)
			}
		}
		out = append(out, runFigure{Run: run, Rounds: len(us), US: stats.Median(us), Ratio: stats.Median(ratios),
			Kernel: stats.Median(kernel)})
	}
	return out
}

// numbers is f of each of xs whose value is a number (not NaN).
func numbers[T any](xs []T, f func(T) float64) []float64 {
	var out []float64
	for _, x := range xs {
		if v := f(x); !math.IsNaN(v) {
			out = append(out, v)
		}
	}
	return out
}

// runRange is the lowest and highest of a row's per-run ratios with their count ("0.55-0.66x
// over 3 runs"; "n/a" for none): the run-to-run spread.
func runRange(runs []runFigure) string {
	xs := numbers(runs, func(f runFigure) float64 { return f.Ratio })
	switch len(xs) {
	case 0:
		return "n/a"
	case 1:
		return "1 run"
	}
	return fmt.Sprintf("%.2f-%.2fx over %d runs", slices.Min(xs), slices.Max(xs), len(xs))
}

// comparisons measures the comparisons asked for in cfg.runs bench runs, each with its servers
// started afresh, and merges each comparison's samples over the runs: the tables of the first run
// (rows, commands, notes) with every run's samples, summarized once.
func (e *env) comparisons(ctx context.Context) []comparison {
	var merged []comparison
	for run := 1; run <= e.cfg.runs && ctx.Err() == nil; run++ {
		e.run = run
		e.log.Info("bench run", "run", run, "of", e.cfg.runs)
		var cs []comparison
		if e.cfg.wants(sectionServers) || e.cfg.wants(sectionGenerators) {
			cs = e.compare(ctx)
		}
		if e.cfg.wants(sectionProtocols) && ctx.Err() == nil {
			cs = append(cs, e.protocolsComparison(ctx))
		}
		if run == 1 {
			merged = cs
			continue
		}
		for _, c := range cs {
			if i := slices.IndexFunc(merged, func(m comparison) bool { return m.Title == c.Title }); i >= 0 {
				merged[i].Samples = append(merged[i].Samples, c.Samples...)
			}
		}
	}
	for i := range merged {
		merged[i] = summarized(merged[i])
	}
	return merged
}
