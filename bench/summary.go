package main

import (
	"maps"
	"math"
	"slices"

	rnd "github.com/crankshaft/crankshaft/internal/rounds"
	"github.com/crankshaft/crankshaft/internal/stats"
)

// sample is one measured run: one client against one server for one round of one bench run.
type sample struct {
	// Run is the bench run (1-based): each starts its servers afresh, so samples of one run share
	// the servers' state and only runs are independent of each other. Round counts within the run.
	Run, Round    int
	Subject, Mode string
	Requests      int64
	Seconds       float64 // the client's wall time
	// ServerUS and ClientUS are CPU microseconds per request of each side.
	ServerUS, ClientUS float64
	// ServerCPU and ClientCPU are each side's CPU over the run, user and system apart: the server's
	// from before to after the run, the client's at its exit. Zero: not read.
	ServerCPU, ClientCPU cpuTicks
	// OthersServer and OthersClient are the shares of the server's and the client's CPU, in
	// percent, that went to anything else during the run (other engineers' processes, steal): signs
	// of a disturbed run. NaN: unknown.
	OthersServer, OthersClient float64
	// Err, when set, says why the run does not count (an error, non-2xx answers).
	Err string
}

// Valid tells whether the run counts.
func (s sample) Valid() bool { return s.Err == "" && s.Requests > 0 }

// ServerSysShare and ClientSysShare are the shares, in percent, of each side's CPU that was system
// time (cpuTicks.SystemPercent); NaN when the side counted no tick.
func (s sample) ServerSysShare() float64 { return s.ServerCPU.SystemPercent() }
func (s sample) ClientSysShare() float64 { return s.ClientCPU.SystemPercent() }

// disturbedPercent: a run in which other processes took more than this share of the server's or
// the client's CPU is disturbed.
const disturbedPercent = 10

// Disturbed tells whether other processes took a noticeable share of either CPU during the run.
func (s sample) Disturbed() bool {
	return s.OthersServer > disturbedPercent || s.OthersClient > disturbedPercent // false for NaN
}

// row is one line of a comparison: a subject in a mode, measured against a reference.
type row struct {
	Subject, Mode, Reference string
	// Target is the highest ratio to the reference that meets the goal; 0 means no target.
	Target float64
	// Skipped, when set, says why the row was not measured ("nginx not installed").
	Skipped string
}

// rowResult is a row with its figures.
type rowResult struct {
	row
	// Used are the subject's measured rounds the figures use, of Valid valid ones. Clean says they
	// are the undisturbed ones; otherwise too few rounds were undisturbed and every valid one counts.
	Used, Valid int
	Clean       bool
	// Median is the median CPU us/req of the subject over its rounds in every bench run (pooled);
	// RefMedian the reference's.
	Median, RefMedian float64
	MedianRPS         float64
	RatioOfMedians    float64 // Median / RefMedian
	// KernelShare is the median, over the rounds the figures use, of the share of the measured
	// side's CPU that was system time, in percent (measuredSysShare); NaN when none counted a tick.
	KernelShare float64
	// Ratio is the figure the target is judged on: the median of the per-round ratios (subject /
	// reference of the same round, since neighbouring measurements share the machine's
	// conditions) of every bench run, pooled. Measured, the rounds of one run vary about as much
	// as all the rounds do (bench/notes.md), so each round adds precision and the pooled median
	// uses them all; Runs keeps each run's figures, the iterations of the JSON result.
	Ratio       float64
	RoundRatios []float64
	// Lo and Hi bound Ratio's 95 % interval and HalfWidth is its precision (ratioInterval): NaN
	// while the row has too few rounds for an interval. The verdict on the target is judged on
	// the interval (verdict.go).
	Lo, Hi, HalfWidth float64
	// Rounds are the subject's rounds the figures use, in the order they ran; Runs their figures
	// by bench run.
	Rounds []roundFigure
	Runs   []runFigure
}

// roundFigure is one round of a row: the subject's CPU per request (us), its ratio to the
// reference's in the same round (NaN when the reference has no run counted in that round) and
// the share of its CPU that was system time, in percent (NaN when it counted no tick).
type roundFigure struct {
	Run, Round        int
	US, Ratio, Kernel float64
}

// measuredUS picks the side a comparison measures.
func measuredUS(s sample, side string) float64 {
	if side == sideClient {
		return s.ClientUS
	}
	return s.ServerUS
}

// measuredSysShare picks the system share of the side a comparison measures.
func measuredSysShare(s sample, side string) float64 {
	if side == sideClient {
		return s.ClientSysShare()
	}
	return s.ServerSysShare()
}

// The side of the exchange a comparison measures.
const (
	sideServer = "server"
	sideClient = "client"
)

// summarize computes each row's medians and ratios from the samples of a comparison. In each
// bench run a row uses the rounds in which its subject and its reference both ran undisturbed,
// when the run has any, and otherwise every valid round of that run (the row is then not Clean):
// every run keeps a figure. Its figures are medians over the rounds of every run, pooled; Runs
// has each run's medians (byRun).
func summarize(rows []row, samples []sample, side string) []rowResult {
	type key struct{ subject, mode string }
	all := map[key][]sample{}
	for _, s := range samples {
		if s.Valid() {
			all[key{s.Subject, s.Mode}] = append(all[key{s.Subject, s.Mode}], s)
		}
	}
	var out []rowResult
	for _, r := range rows {
		res := rowResult{row: r, Median: math.NaN(), RefMedian: math.NaN(), MedianRPS: math.NaN(),
			RatioOfMedians: math.NaN(), Ratio: math.NaN(), Lo: math.NaN(), Hi: math.NaN(), HalfWidth: math.NaN(),
			KernelShare: math.NaN()}
		if r.Skipped != "" {
			out = append(out, res)
			continue
		}
		mk, rk := key{r.Subject, r.Mode}, key{r.Reference, r.Mode}
		var mine, ref []sample
		mine, ref, res.Rounds, res.Clean = chooseRounds(all[mk], all[rk], side)
		res.RoundRatios = roundRatios(res.Rounds)
		res.Used, res.Valid = len(mine), len(all[mk])
		res.Runs = byRun(res.Rounds)
		res.Median = stats.Median(numbers(res.Rounds, func(f roundFigure) float64 { return f.US }))
		res.Ratio = stats.Median(res.RoundRatios)
		res.Lo, res.Hi, res.HalfWidth = ratioInterval(r, res.RoundRatios)
		res.MedianRPS = stats.Median(numbers(mine, func(s sample) float64 { return float64(s.Requests) / s.Seconds }))
		res.KernelShare = stats.Median(numbers(res.Rounds, func(f roundFigure) float64 { return f.Kernel }))
		res.RefMedian = stats.Median(numbers(ref, func(s sample) float64 { return measuredUS(s, side) }))
		res.RatioOfMedians = res.Median / res.RefMedian
		out = append(out, res)
	}
	return out
}

// paired keeps the rounds both mine and ref have (a subject measured against itself has both).
func paired(mine, ref []sample) ([]sample, []sample) {
	in := func(ss []sample) func(sample) bool {
		return func(s sample) bool {
			return !slices.ContainsFunc(ss, func(o sample) bool { return o.Run == s.Run && o.Round == s.Round })
		}
	}
	return slices.DeleteFunc(slices.Clone(mine), in(ref)), slices.DeleteFunc(slices.Clone(ref), in(mine))
}

// chooseRounds picks, run by run, the subject's and the reference's rounds a row's figures use:
// the undisturbed ones when the run has a round with both undisturbed, else all the run's valid
// ones. clean says every run had such a round.
func chooseRounds(mine, ref []sample, side string) (usedMine, usedRef []sample, rounds []roundFigure, clean bool) {
	byRunOf := func(ss []sample) map[int][]sample {
		m := map[int][]sample{}
		for _, s := range ss {
			m[s.Run] = append(m[s.Run], s)
		}
		return m
	}
	mineBy, refBy := byRunOf(mine), byRunOf(ref)
	runs := slices.Sorted(maps.Keys(mineBy))
	undisturbed := func(ss []sample) []sample {
		return slices.DeleteFunc(slices.Clone(ss), sample.Disturbed)
	}
	clean = len(runs) > 0
	for _, run := range runs {
		m, r := paired(undisturbed(mineBy[run]), undisturbed(refBy[run]))
		figs := roundFigures(m, r, side)
		if len(figs) == 0 {
			m, r = mineBy[run], refBy[run]
			figs, clean = roundFigures(m, r, side), false
		}
		usedMine, usedRef, rounds = append(usedMine, m...), append(usedRef, r...), append(rounds, figs...)
	}
	return usedMine, usedRef, rounds, clean
}

// cleanPairs is, over the rows that are measured, the fewest rounds in which a row's subject and
// its reference both ran validly and undisturbed: a bench run's rounds go on until it reaches the
// rounds asked for.
func cleanPairs(rows []row, samples []sample) int {
	subject := func(name, mode string) string { return name + "\x00" + mode }
	clean := map[rnd.Key]bool{}
	for _, s := range samples {
		if s.Valid() && !s.Disturbed() {
			clean[rnd.Key{Subject: subject(s.Subject, s.Mode), Run: s.Run, Round: s.Round}] = true
		}
	}
	fewest := -1
	for _, r := range rows {
		if r.Skipped != "" {
			continue
		}
		if n := rnd.CleanPairs(clean, subject(r.Subject, r.Mode), subject(r.Reference, r.Mode)); fewest < 0 || n < fewest {
			fewest = n
		}
	}
	return max(fewest, 0)
}

// roundRatios is the ratios of the rounds in which the reference ran too, in the order the
// subject's runs ran.
func roundRatios(rounds []roundFigure) []float64 {
	return numbers(rounds, func(f roundFigure) float64 { return f.Ratio })
}

// roundFigures is each of the subject's runs with its ratio to the reference's run of its round.
func roundFigures(mine, ref []sample, side string) []roundFigure {
	type at struct{ run, round int }
	refByRound := map[at]float64{}
	for _, s := range ref {
		refByRound[at{s.Run, s.Round}] = measuredUS(s, side)
	}
	out := make([]roundFigure, 0, len(mine))
	for _, s := range mine {
		f := roundFigure{Run: s.Run, Round: s.Round, US: measuredUS(s, side), Ratio: math.NaN(), Kernel: measuredSysShare(s, side)}
		if r, ok := refByRound[at{s.Run, s.Round}]; ok && r > 0 {
			f.Ratio = f.US / r
		}
		out = append(out, f)
	}
	return out
}
