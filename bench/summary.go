package main

import (
	"math"
	"slices"
)

// sample is one measured run: one client against one server for one round.
type sample struct {
	Round         int
	Subject, Mode string
	Requests      int64
	Seconds       float64 // the client's wall time
	// ServerUS and ClientUS are CPU microseconds per request of each side.
	ServerUS, ClientUS float64
	// OthersServer and OthersClient are the shares of the server's and the client's CPU, in
	// percent, that went to anything else during the run (other engineers' processes, steal): signs
	// of a disturbed run. NaN: unknown.
	OthersServer, OthersClient float64
	// Err, when set, says why the run does not count (an error, non-2xx answers).
	Err string
}

// Valid tells whether the run counts.
func (s sample) Valid() bool { return s.Err == "" && s.Requests > 0 }

// disturbedPercent: a run in which other processes took more than this share of the server's or
// the client's CPU is disturbed.
const disturbedPercent = 10

// Disturbed tells whether other processes took a noticeable share of either CPU during the run.
func (s sample) Disturbed() bool {
	return s.OthersServer > disturbedPercent || s.OthersClient > disturbedPercent // false for NaN
}

// minCleanRounds is the fewest rounds with a row's subject and reference both undisturbed that
// the row's figures are computed from; with fewer, they use every run, and the report says so.
const minCleanRounds = 3

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
	// Runs are the subject's runs the figures use, of AllRuns valid ones. Clean says they are the
	// undisturbed runs; otherwise too few rounds were undisturbed and every valid run counts.
	Runs, AllRuns     int
	Clean             bool
	Median, RefMedian float64 // median CPU us/req of the subject and of its reference
	MedianRPS         float64
	RatioOfMedians    float64 // Median / RefMedian
	// RoundRatio is the median, over rounds where both ran, of subject / reference in that round:
	// the figure the target is judged on, since neighbouring runs share the machine's conditions.
	RoundRatio  float64
	RoundRatios []float64
	// Rounds are the subject's runs the figures use, in the order they ran.
	Rounds []roundFigure
}

// roundFigure is one round of a row: the subject's CPU per request (us) and its ratio to the
// reference's in the same round (NaN when the reference has no run counted in that round).
type roundFigure struct {
	Round     int
	US, Ratio float64
}

// Met says whether the target is met: "yes", "no", or "-" when there is none or no figure.
func (r rowResult) Met() string {
	if r.Target == 0 || r.Skipped != "" || math.IsNaN(r.RoundRatio) {
		return "-"
	}
	if r.RoundRatio <= r.Target {
		return "yes"
	}
	return "no"
}

// median of xs (NaN for none); xs is not modified.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// measuredUS picks the side a comparison measures.
func measuredUS(s sample, side string) float64 {
	if side == sideClient {
		return s.ClientUS
	}
	return s.ServerUS
}

// The side of the exchange a comparison measures.
const (
	sideServer = "server"
	sideClient = "client"
)

// summarize computes each row's medians and ratios from the samples of a comparison. A row uses
// the undisturbed runs of its subject and its reference when at least minCleanRounds rounds have
// both undisturbed, and every valid run otherwise.
func summarize(rows []row, samples []sample, side string) []rowResult {
	type key struct{ subject, mode string }
	all, clean := map[key][]sample{}, map[key][]sample{}
	for _, s := range samples {
		if !s.Valid() {
			continue
		}
		k := key{s.Subject, s.Mode}
		all[k] = append(all[k], s)
		if !s.Disturbed() {
			clean[k] = append(clean[k], s)
		}
	}
	var out []rowResult
	for _, r := range rows {
		res := rowResult{row: r, Median: math.NaN(), RefMedian: math.NaN(), MedianRPS: math.NaN(),
			RatioOfMedians: math.NaN(), RoundRatio: math.NaN()}
		if r.Skipped != "" {
			out = append(out, res)
			continue
		}
		mk, rk := key{r.Subject, r.Mode}, key{r.Reference, r.Mode}
		mine, ref := clean[mk], clean[rk]
		res.Rounds, res.Clean = roundFigures(mine, ref, side), true
		res.RoundRatios = roundRatios(res.Rounds)
		if len(res.RoundRatios) < minCleanRounds {
			mine, ref = all[mk], all[rk]
			res.Rounds, res.Clean = roundFigures(mine, ref, side), false
			res.RoundRatios = roundRatios(res.Rounds)
		}
		res.Runs, res.AllRuns = len(mine), len(all[mk])
		res.Median = median(values(mine, func(s sample) float64 { return measuredUS(s, side) }))
		res.MedianRPS = median(values(mine, func(s sample) float64 { return float64(s.Requests) / s.Seconds }))
		res.RefMedian = median(values(ref, func(s sample) float64 { return measuredUS(s, side) }))
		res.RatioOfMedians = res.Median / res.RefMedian
		res.RoundRatio = median(res.RoundRatios)
		out = append(out, res)
	}
	return out
}

// cleanPairs is, over the rows that are measured, the fewest rounds in which a row's subject and
// its reference both ran undisturbed: the rounds go on until it reaches the rounds asked for.
func cleanPairs(rows []row, samples []sample) int {
	fewest := -1
	for _, r := range rows {
		if r.Skipped != "" {
			continue
		}
		n := 0
		if res := summarize([]row{r}, samples, sideServer)[0]; res.Clean {
			n = len(res.RoundRatios)
		}
		if fewest < 0 || n < fewest {
			fewest = n
		}
	}
	return max(fewest, 0)
}

func values(ss []sample, f func(sample) float64) []float64 {
	out := make([]float64, 0, len(ss))
	for _, s := range ss {
		out = append(out, f(s))
	}
	return out
}

// roundRatios is the ratios of the rounds in which the reference ran too, in the order the
// subject's runs ran.
func roundRatios(rounds []roundFigure) []float64 {
	var out []float64
	for _, f := range rounds {
		if !math.IsNaN(f.Ratio) {
			out = append(out, f.Ratio)
		}
	}
	return out
}

// roundFigures is each of the subject's runs with its ratio to the reference's run of its round.
func roundFigures(mine, ref []sample, side string) []roundFigure {
	refByRound := map[int]float64{}
	for _, s := range ref {
		refByRound[s.Round] = measuredUS(s, side)
	}
	out := make([]roundFigure, 0, len(mine))
	for _, s := range mine {
		f := roundFigure{Round: s.Round, US: measuredUS(s, side), Ratio: math.NaN()}
		if r, ok := refByRound[s.Round]; ok && r > 0 {
			f.Ratio = f.US / r
		}
		out = append(out, f)
	}
	return out
}
