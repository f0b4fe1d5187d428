package main

import (
	"math"
	"slices"
	"testing"
)

// sixRounds: three runs of two rounds; "tight" costs half the reference's in every round (ratios
// 0.49-0.51), "loose" 0.4-0.8 of it.
func sixRounds() []sample {
	var out []sample
	loose := []float64{0.4, 0.8, 0.5, 0.7, 0.45, 0.75}
	for i := range 6 {
		run, round := 1+i/2, 1+i%2
		mk := func(subject string, us float64) sample {
			return sample{Run: run, Round: round, Subject: subject, Mode: "unpipelined", Requests: 1000, Seconds: 1, ClientUS: us}
		}
		out = append(out, mk("ref", 10), mk("tight", 4.9+0.1*float64(i%3)), mk("loose", 10*loose[i]))
	}
	return out
}

func precisionRows() []row {
	return []row{{Subject: "ref", Mode: "unpipelined", Reference: "ref"}, {Subject: "tight", Mode: "unpipelined", Reference: "ref"},
		{Subject: "loose", Mode: "unpipelined", Reference: "ref"}, {Subject: "gone", Mode: "unpipelined", Reference: "ref", Skipped: "skipped: gone"}}
}

// TestImpreciseRowsGetRounds: over six pooled rounds the loose row's interval is ±34 % (0.4 to
// 0.8 about 0.6), the tight one's ±2 %; only the loose row, with its reference, runs again at
// ±5 %; under six rounds no row has an interval yet, and --precision 0 adds none.
func TestImpreciseRowsGetRounds(t *testing.T) {
	rows, pooled := precisionRows(), sixRounds()
	res := summarize(rows, pooled, sideClient)
	if h := res[2].HalfWidth; math.Abs(h-0.2/0.6) > 1e-9 {
		t.Errorf("loose: half-width %v, want %v", h, 0.2/0.6)
	}
	if h := res[1].HalfWidth; !(h < 0.03) {
		t.Errorf("tight: half-width %v, want under 3 %%", h)
	}
	if h := res[0].HalfWidth; h != 0 {
		t.Errorf("the reference: half-width %v, want 0", h)
	}
	got := imprecise(rows, pooled, sideClient, 5)
	if len(got) != 1 || got[0].Subject != "loose" {
		t.Fatalf("imprecise at 5 %%: %+v, want the loose row", got)
	}
	if got := imprecise(rows, pooled, sideClient, 40); len(got) != 0 {
		t.Errorf("imprecise at 40 %%: %+v, want none", got)
	}
	if got := imprecise(rows, pooled[:15], sideClient, 5); len(got) != 0 {
		t.Errorf("imprecise over 5 rounds: %+v, want none (no interval yet)", got)
	}
	if got := imprecise(rows, pooled, sideClient, 0); got != nil {
		t.Errorf("--precision 0: %+v, want none", got)
	}
	// a tight row whose interval (0.49-0.51) holds its target does not tell which side it is on
	rows[1].Target = 0.5
	if got := imprecise(rows, pooled, sideClient, 5); len(got) != 2 || got[0].Subject != "tight" || got[1].Subject != "loose" {
		t.Errorf("tight row with target 0.5, imprecise at 5 %%: %+v, want it and the loose row", got)
	}
	rows[1].Target = 0.52
	if got := imprecise(rows, pooled, sideClient, 5); len(got) != 1 {
		t.Errorf("tight row with target 0.52, imprecise at 5 %%: %+v, want only the loose row", got)
	}
	rows[1].Target = 0
	if txt := precisionText(summarize(rows, pooled[:15], sideClient)[2]); txt != "n/a (5 rounds)" {
		t.Errorf("5 rounds: %q", txt)
	}

	trials := []trial{{Subject: "ref"}, {Subject: "tight"}, {Subject: "loose"}}
	for i := range trials {
		trials[i].Pipeline = 1
	}
	names := func(ts []trial) []string {
		var out []string
		for _, t := range ts {
			out = append(out, t.Subject)
		}
		return out
	}
	if got := names(trialsFor(trials, got)); !slices.Equal(got, []string{"ref", "loose"}) {
		t.Errorf("trials for the loose row: %v, want ref and loose", got)
	}

	// Run 3 of 3, its two rounds done (the last two of pooled): round 3 measures the loose row and
	// its reference; past --max-rounds, nothing.
	e := &env{cfg: config{rounds: 2, roundsCap: 4, precision: 5}}
	earlier, run3 := pooled[:12], pooled[12:]
	if got := names(e.nextTrials(1, trials, rows, sideClient, earlier, nil)); len(got) != 3 {
		t.Errorf("round 1: %v, want every trial", got)
	}
	if got := names(e.nextTrials(3, trials, rows, sideClient, earlier, run3)); !slices.Equal(got, []string{"ref", "loose"}) {
		t.Errorf("round 3: %v, want ref and loose", got)
	}
	if got := e.nextTrials(5, trials, rows, sideClient, earlier, run3); got != nil {
		t.Errorf("round 5 past --max-rounds 4: %v", names(got))
	}
	// A run whose rounds were disturbed runs every trial again first (up to twice the rounds).
	disturbed := slices.Clone(run3)
	for i := range disturbed {
		disturbed[i].OthersClient = 50
	}
	if got := names(e.nextTrials(3, trials, rows, sideClient, earlier, disturbed)); len(got) != 3 {
		t.Errorf("round 3 after disturbed rounds: %v, want every trial", got)
	}
}
