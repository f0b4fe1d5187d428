package main

import (
	"math"
	"slices"
	"testing"
)

// threeRounds: three bench runs of one round each; the reference costs 4, 5, 6 us/req by run,
// the subject 2, 3, 6; the run-3 round of the subject also had an invalid twin that must be ignored.
// Of each 100 server ticks, the reference's were 50, 60, 70 system ticks, the subject's 20, 40, 90;
// the client's were 30 % system ticks throughout. The invalid twin read no ticks.
func threeRounds() []sample {
	mk := func(run int, subject string, server, client float64, serverSys uint64) sample {
		return sample{Run: run, Round: 1, Subject: subject, Mode: "unpipelined", Requests: 1000, Seconds: 2,
			ServerUS: server, ClientUS: client,
			ServerCPU: cpuTicks{User: 100 - serverSys, System: serverSys}, ClientCPU: cpuTicks{User: 70, System: 30}}
	}
	return []sample{
		mk(1, "ref", 4, 1, 50), mk(1, "sub", 2, 1, 20),
		mk(2, "sub", 3, 1, 40), mk(2, "ref", 5, 1, 60),
		mk(3, "ref", 6, 1, 70), mk(3, "sub", 6, 2, 90),
		{Run: 3, Round: 1, Subject: "sub", Mode: "unpipelined", Requests: 10, Seconds: 2, ServerUS: 99, OthersServer: 4.4, OthersClient: 7, Err: "3 responses were not 2xx or 3xx"},
	}
}

func TestSummarize(t *testing.T) {
	rows := []row{
		{Subject: "ref", Mode: "unpipelined", Reference: "ref"},
		{Subject: "sub", Mode: "unpipelined", Reference: "ref", Target: 0.6},
		{Subject: "gone", Mode: "unpipelined", Reference: "ref", Target: 1, Skipped: "skipped: gone not installed"},
	}
	res := summarize(rows, threeRounds(), sideServer)
	if len(res) != 3 {
		t.Fatalf("%d results, want 3", len(res))
	}
	ref, sub, gone := res[0], res[1], res[2]
	if ref.Median != 5 || ref.Ratio != 1 || len(ref.Runs) != 3 || ref.Met() != "-" {
		t.Errorf("reference = %+v", ref)
	}
	if sub.Median != 3 || sub.RefMedian != 5 || sub.RatioOfMedians != 0.6 || len(sub.Runs) != 3 {
		t.Errorf("subject medians = %+v", sub)
	}
	// per round: 2/4, 3/5, 6/6 -> median 0.6
	if want := []float64{0.5, 0.6, 1}; !slices.Equal(sub.RoundRatios, want) || sub.Ratio != 0.6 {
		t.Errorf("round ratios = %v (median %v), want %v (0.6)", sub.RoundRatios, sub.Ratio, want)
	}
	// three rounds give no interval: no verdict on them
	if sub.MedianRPS != 500 || sub.Met() != "cannot tell" || sub.Why() != "3 rounds give no 95 % interval (6 do): more rounds would tell" {
		t.Errorf("rps %v met %q (%s), want 500, cannot tell for want of rounds", sub.MedianRPS, sub.Met(), sub.Why())
	}
	if ref.KernelShare != 60 || sub.KernelShare != 40 {
		t.Errorf("server kernel shares: reference %v, subject %v; want 60 and 40 (medians of 50 60 70 and 20 40 90)",
			ref.KernelShare, sub.KernelShare)
	}
	if len(gone.Runs) != 0 || !math.IsNaN(gone.Median) || gone.Met() != "-" || !math.IsNaN(gone.KernelShare) {
		t.Errorf("skipped row = %+v", gone)
	}
	client := summarize(rows[1:2], threeRounds(), sideClient)[0]
	if client.Median != 1 || client.Ratio != 1 || client.KernelShare != 30 {
		t.Errorf("client side = %+v, want median 1, ratio 1, kernel share 30 (the client's)", client)
	}
}

func TestOthersShare(t *testing.T) {
	before := cpuTimes{Busy: 1000, Idle: 500}
	after := cpuTimes{Busy: 1290, Idle: 510} // 300 ticks: 290 busy, of which the server 261
	if got := othersShare(before, after, 261); math.Abs(got-29.0/300*100) > 1e-9 {
		t.Errorf("othersShare = %v, want %v", got, 29.0/300*100)
	}
	if got := othersShare(before, after, 400); got != 0 {
		t.Errorf("server above the CPU's busy time: %v, want 0", got)
	}
	if got := othersShare(before, before, 0); !math.IsNaN(got) {
		t.Errorf("no time passed: %v, want NaN", got)
	}
}

// TestSummarizeDisturbed: in each run a row uses the rounds with its subject and reference both
// undisturbed when the run has one (run 4's second round), and that run's every valid round when
// it has none (run 5), so that every run keeps a figure.
func TestSummarizeDisturbed(t *testing.T) {
	rows := []row{{Subject: "sub", Mode: "unpipelined", Reference: "ref"}}
	mk := func(run, round int, subject string, us, others float64) sample {
		return sample{Run: run, Round: round, Subject: subject, Mode: "unpipelined", Requests: 1000, Seconds: 2, ServerUS: us, OthersServer: others}
	}
	samples := append(threeRounds(),
		mk(4, 1, "ref", 50, 40), mk(4, 1, "sub", 1, 0), // disturbed: left out, run 4 has a clean round
		mk(4, 2, "sub", 3, 0), mk(4, 2, "ref", 5, 0))
	if !samples[7].Disturbed() || samples[8].Disturbed() || samples[0].Disturbed() {
		t.Fatal("Disturbed: want true above 10% of either CPU only")
	}
	res := summarize(rows, samples, sideServer)[0]
	if !res.Clean || res.Used != 4 || res.Valid != 5 || res.Ratio != 0.6 || res.Median != 3 || res.RefMedian != 5 || len(res.Runs) != 4 {
		t.Errorf("from the undisturbed rounds: %+v; want clean, 4 of 5 rounds over 4 runs, ratio 0.6, medians 3 and 5", res)
	}
	if n := cleanPairs(rows, samples); n != 4 {
		t.Errorf("cleanPairs = %d, want 4", n)
	}
	busy := append(slices.Clone(samples), mk(5, 1, "ref", 10, 40), mk(5, 1, "sub", 2, 0))
	res = summarize(rows, busy, sideServer)[0]
	if res.Clean || len(res.Runs) != 5 || res.Runs[4].Ratio != 0.2 || res.Used != 5 {
		t.Errorf("a run with no undisturbed round: %+v; want run 5 kept from its disturbed round (0.2), not clean", res)
	}
	if n := cleanPairs(append(rows, row{Subject: "x", Skipped: "n/a"}), samples); n != 4 {
		t.Errorf("cleanPairs ignoring a skipped row = %d, want 4", n)
	}
	if got := sampleNote(busy[len(busy)-2]); got != "disturbed" {
		t.Errorf("sampleNote = %q", got)
	}
}

// TestSysShare: a sample's kernel shares are each side's system ticks over its user + system
// ticks, NaN for a side that counted no tick; a row's is the median over its rounds of its measured
// side's, leaving out the rounds with no tick, and NaN (shown "n/a") when none had one.
func TestSysShare(t *testing.T) {
	s := sample{ServerCPU: cpuTicks{User: 120, System: 280}, ClientCPU: cpuTicks{User: 30, System: 10}}
	if got := s.ServerSysShare(); got != 70 {
		t.Errorf("ServerSysShare = %v, want 70 (280 of 400 ticks)", got)
	}
	if got := s.ClientSysShare(); got != 25 {
		t.Errorf("ClientSysShare = %v, want 25 (10 of 40 ticks)", got)
	}
	if measuredSysShare(s, sideServer) != 70 || measuredSysShare(s, sideClient) != 25 {
		t.Errorf("measuredSysShare picks the wrong side")
	}
	none := sample{ServerUS: 5, ClientUS: 1}
	if !math.IsNaN(none.ServerSysShare()) || !math.IsNaN(none.ClientSysShare()) {
		t.Errorf("no ticks: shares %v, %v; want NaN", none.ServerSysShare(), none.ClientSysShare())
	}
	if got := num(none.ServerSysShare(), 0); got != "n/a" {
		t.Errorf("a share of no ticks is shown %q, want n/a", got)
	}

	rows := []row{{Subject: "sub", Mode: "unpipelined", Reference: "sub"}}
	mk := func(round int, cpu cpuTicks) sample {
		return sample{Run: 1, Round: round, Subject: "sub", Mode: "unpipelined", Requests: 1000, Seconds: 1, ServerUS: 5, ServerCPU: cpu}
	}
	mixed := []sample{mk(1, cpuTicks{User: 90, System: 10}), mk(2, cpuTicks{}), mk(3, cpuTicks{User: 70, System: 30})}
	if got := summarize(rows, mixed, sideServer)[0].KernelShare; got != 20 {
		t.Errorf("kernel share of rounds with 10 %%, no tick and 30 %%: %v, want 20", got)
	}
	if got := summarize(rows, []sample{mk(1, cpuTicks{}), mk(2, cpuTicks{})}, sideServer)[0].KernelShare; !math.IsNaN(got) {
		t.Errorf("kernel share of rounds with no tick: %v, want NaN", got)
	}
}
