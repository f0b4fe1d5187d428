package main

import (
	"fmt"
	"math"
	"slices"

	rnd "github.com/crankshaft/crankshaft/internal/rounds"
	"github.com/crankshaft/crankshaft/internal/stats"
)

// precisionLevel is the confidence of a row's interval: the median of its per-round ratios lies
// within it 95 times in 100.
const precisionLevel = 0.95

// ratioInterval is the distribution-free 95 % interval of the median of a row's per-round ratios
// (stats.MedianCI) and its precision, half its width as a share of the median: NaN while there are
// too few for an interval (under 6), and 1, 1, 0 for a row measured against itself (the
// reference, whose ratios are all 1).
func ratioInterval(r row, ratios []float64) (lo, hi, halfWidth float64) {
	med, lo, hi, ok := stats.MedianCI(ratios, precisionLevel)
	switch {
	case r.Subject == r.Reference && len(ratios) > 0:
		return 1, 1, 0
	case !ok || !(med > 0):
		return math.NaN(), math.NaN(), math.NaN()
	}
	return lo, hi, (hi - lo) / 2 / med
}

// precisionText is a row's interval as the report shows it ("±4.1 %"; "n/a (5 rounds)" with too
// few for one).
func precisionText(r rowResult) string {
	if math.IsNaN(r.HalfWidth) {
		return fmt.Sprintf("n/a (%d rounds)", len(r.RoundRatios))
	}
	return fmt.Sprintf("±%.1f %%", 100*r.HalfWidth)
}

// within is " ±4.1 %" after a row's ratio in the goals, or "" while it has no interval.
func within(r rowResult) string {
	if math.IsNaN(r.HalfWidth) {
		return ""
	}
	return " " + precisionText(r)
}

// imprecise is the rows, of those measured, whose ratio is not yet known within the precision
// asked for (percent, over the rounds of every bench run so far: pooled, as their figure is):
// those with an interval wider than it, and those whose interval holds their target (more
// rounds may tell which side of it they are on). A row with too few rounds for an interval yet is not one:
// the runs to come give it rounds; with the bench's defaults (3 runs of 2 rounds) the last run
// is the first that can add rounds for precision.
func imprecise(rows []row, pooled []sample, side string, precision float64) []row {
	if precision <= 0 {
		return nil
	}
	var out []row
	for _, r := range summarize(rows, pooled, side) {
		if r.Skipped != "" {
			continue
		}
		if r.HalfWidth > precision/100 || r.straddles() {
			out = append(out, r.row)
		}
	}
	return out
}

// trialsFor is the trials that measure rows: each row's subject and its reference, in the order
// of trials (a reference shared by several rows runs once a round).
func trialsFor(trials []trial, rows []row) []trial {
	want := func(t trial) bool {
		return slices.ContainsFunc(rows, func(r row) bool {
			return r.Mode == t.mode() && (r.Subject == t.Subject || r.Reference == t.Subject)
		})
	}
	var out []trial
	for _, t := range trials {
		if want(t) {
			out = append(out, t)
		}
	}
	return out
}

// nextTrials is what round r (from 1) of a bench run measures, given the run's samples so far
// (out) and the earlier runs' (pooled): every trial in the rounds asked for, and again (up to
// maxRounds) while a row lacks undisturbed rounds in this run; after that, up to --max-rounds,
// only the trials of the rows still imprecise over all runs so far; nil when the run's rounds are
// done.
func (e *env) nextTrials(r int, trials []trial, rows []row, side string, pooled, out []sample) []trial {
	if r <= e.cfg.rounds {
		return trials
	}
	if rnd.Again(r-1, e.cfg.maxRounds(), cleanPairs(rows, out) < e.cfg.rounds) {
		return trials // the re-run rule of every command (rounds.Again), by rounds
	}
	if r > e.cfg.roundsCap {
		return nil
	}
	return trialsFor(trials, imprecise(rows, append(slices.Clone(pooled), out...), side, e.cfg.precision))
}
