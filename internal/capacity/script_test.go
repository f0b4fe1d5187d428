package capacity

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// script is a scripted stepper: each rate's outcomes in the order it is measured, one letter each:
// p passes, f fails on its SLO on a quiet machine, b falls behind on a quiet machine, d fails on a
// busy machine, D passes on a busy machine. A rate with no letter left passes up to capacity and
// fails on its SLO above it. It keeps what it was asked, and why.
type script struct {
	capacity float64
	outcomes map[float64]string
	asked    []float64
	agains   []string
}

func (sc *script) measure(_ context.Context, a Ask) (Step, error) {
	sc.asked = append(sc.asked, a.Rate)
	sc.agains = append(sc.agains, a.Again)
	kind := "p"
	if a.Rate > sc.capacity {
		kind = "f"
	}
	if left := sc.outcomes[a.Rate]; left != "" {
		kind, sc.outcomes[a.Rate] = left[:1], left[1:]
	}
	s := Step{Asked: a.Rate, Achieved: a.Rate, Pass: kind == "p" || kind == "D", Busy: kind == "d" || kind == "D"}
	if s.Busy {
		s.Outside = 50
	}
	switch kind {
	case "f", "d":
		s.Failed = []string{"load: http/latency/99 < 20 (31.5)"}
	case "b":
		s.Achieved, s.FellBehind = a.Rate/2, true
		s.Failed = []string{"the generator fell behind"}
	}
	return s, nil
}

// TestSearchOnABusyMachineCannotTell is issue 44's search: a server whose capacity is 2,000 req/s,
// on a machine so busy that every step from 360 req/s fails. Each failure is measured twice again;
// failing each time on the busy machine, it stands for the direction of the search but not for an
// answer: the search cannot tell, gives its bracket, and names a quiet machine as what would tell.
func TestSearchOnABusyMachineCannotTell(t *testing.T) {
	sc := &script{capacity: 2000, outcomes: map[float64]string{}}
	for _, r := range []float64{500, 375} {
		sc.outcomes[r] = "ddd"
	}
	r, err := Search(context.Background(), DefaultOptions(), sc.measure)
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{500, 500, 500, 250, 375, 375, 375, 312.5, 343.75, 359.375}
	if !slices.Equal(sc.asked, want) {
		t.Errorf("asked %v, want %v: each busy failure measured twice again", sc.asked, want)
	}
	if r.Rate != 359.375 || r.FailedAt != 375 {
		t.Errorf("bracket %v-%v, want 359.375-375", r.Rate, r.FailedAt)
	}
	if !strings.Contains(r.Inconclusive, "375 req/s failed only while the machine was disturbed (machine busy: 50 % of it used outside the run)") ||
		!strings.HasPrefix(r.WouldTell, "a quiet machine") {
		t.Errorf("cannot tell %q, would tell %q", r.Inconclusive, r.WouldTell)
	}
	sum := r.Summary()
	for _, w := range []string{"capacity: cannot tell: ", "capacity between 359 and 375 req/s as measured", "what would tell: a quiet machine"} {
		if !strings.Contains(sum, w) {
			t.Errorf("summary lacks %q:\n%s", w, sum)
		}
	}
	again := "it failed on a disturbed machine"
	if !r.Steps[0].Repeated || r.Steps[0].Repeat || !r.Steps[1].Repeat || r.Steps[2].Again != again || sc.agains[2] != again {
		t.Errorf("steps %+v: want 500's second and third measures marked as repeats, saying why", r.Steps[:3])
	}
	if got := r.Steps[2].Outcome(); got != "FAIL (machine busy: 50 % of it used outside the run; measured again: "+again+")" {
		t.Errorf("outcome %q", got)
	}
}

// TestSearchDisturbedOnceThenQuiet: a failure on a busy machine measured again on a quiet one is
// decided by the quiet measures (confirmed as any first failure on the SLOs is); a pass on a busy
// machine stands. The answer is settled.
func TestSearchDisturbedOnceThenQuiet(t *testing.T) {
	sc := &script{capacity: 1000, outcomes: map[float64]string{1000: "D", 2000: "dff", 750: "dp"}}
	r, err := Search(context.Background(), DefaultOptions(), sc.measure)
	if err != nil || r.Inconclusive != "" {
		t.Fatalf("err %v, cannot tell %q", err, r.Inconclusive)
	}
	if !slices.Equal(sc.asked[:6], []float64{500, 1000, 2000, 2000, 2000, 1500}) {
		t.Errorf("asked %v: want 2,000 three times (busy, then a quiet failure confirmed)", sc.asked)
	}
	if r.Rate != 1000 || r.FailedAt != 1031.25 {
		t.Errorf("capacity %v failed at %v (asked %v), want 1000 and 1031.25", r.Rate, r.FailedAt, sc.asked)
	}
	if !strings.Contains(r.Summary(), "capacity between 1,000 and 1,031 req/s") {
		t.Errorf("summary:\n%s", r.Summary())
	}
	if sc.agains[4] != "it failed on the SLOs alone while the generator kept up, which one noisy second can cause" {
		t.Errorf("why 2,000 a third time: %q", sc.agains[4])
	}
}

// TestSearchContradictionThatStays: a rate that passed once and failed twice, one of them on a busy
// machine, is neither: measured three times, the search cannot settle, and says so with its tally.
func TestSearchContradictionThatStays(t *testing.T) {
	sc := &script{capacity: 1000, outcomes: map[float64]string{1000: "ff", 750: "fpd"}}
	r, err := Search(context.Background(), DefaultOptions(), sc.measure)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(sc.asked, []float64{500, 1000, 1000, 750, 750, 750}) {
		t.Errorf("asked %v", sc.asked)
	}
	want := "the steps contradict each other after measuring again: 750 req/s both passed and failed: 750 req/s passed 1 and failed 2 of 3 measures (1 on a disturbed machine)"
	if r.Inconclusive != want || !strings.Contains(r.WouldTell, "--step-duration") {
		t.Errorf("cannot tell %q, would tell %q; want %q", r.Inconclusive, r.WouldTell, want)
	}
	if r.Rate != 500 || r.FailedAt != 1000 || !strings.Contains(r.Summary(), "capacity between 500 and 1,000 req/s as measured") {
		t.Errorf("bracket %v-%v:\n%s", r.Rate, r.FailedAt, r.Summary())
	}
}

// replay runs a searcher over a recorded history (rate, outcome letter), then on from there with
// the script's outcomes, as Search does.
func replay(sc *script, history []string) (*searcher, ended) {
	s := &searcher{o: DefaultOptions(), measure: sc.measure, byRate: map[float64][]int{}, start: time.Now()}
	last := 0.0
	for _, h := range history {
		rate, _ := strconv.ParseFloat(h[:len(h)-1], 64)
		kind := h[len(h)-1:]
		sc.outcomes[rate] = kind + sc.outcomes[rate]
		_ = s.step(context.Background(), Ask{Rate: rate})
		last = rate
	}
	sc.asked, sc.agains = nil, nil
	for {
		ask, end := s.next(last)
		if end.done || len(s.r.Steps) > 20 {
			return s, end
		}
		_ = s.step(context.Background(), ask)
		last = ask.Rate
	}
}

// TestSearchSettlesNonMonotonicRates: 312 req/s failed (twice) below 344, which passed: before any
// answer both ends are measured again, up to three measures each. When 344 then fails twice, the
// rates are monotonic again and the search goes on between 250 and 312; when both ends keep their
// verdicts, the search cannot settle.
func TestSearchSettlesNonMonotonicRates(t *testing.T) {
	history := []string{"250p", "312f", "312f", "344p"}
	sc := &script{capacity: 1000, outcomes: map[float64]string{312: "f", 344: "ff", 281: "p", 296.5: "p", 304.25: "p"}}
	s, end := replay(sc, history)
	if len(sc.asked) < 4 || !slices.Equal(sc.asked[:4], []float64{312, 344, 344, 281}) || sc.agains[0] != "312 req/s failed below 344 req/s, which passed" {
		t.Errorf("asked %v (%q), want 312 then 344 twice measured again, then 281", sc.asked, sc.agains)
	}
	if end.unsettled != "" || s.r.Inconclusive != "" {
		t.Errorf("settled contradiction said unsettled: %q", end.unsettled)
	}
	if r, _ := s.finish(end); r.Rate != 304.25 || r.FailedAt != 312 {
		t.Errorf("bracket %v-%v, want 304.25-312 (asked %v)", r.Rate, r.FailedAt, sc.asked)
	}
	sc = &script{capacity: 1000, outcomes: map[float64]string{312: "f", 344: "pp"}}
	s, end = replay(sc, history)
	if !slices.Equal(sc.asked, []float64{312, 344, 344}) {
		t.Errorf("asked %v, want 312 once and 344 twice more", sc.asked)
	}
	r, err := s.finish(end)
	want := "the steps contradict each other after measuring again: 312 req/s failed below 344 req/s, which passed: " +
		"312 req/s passed 0 and failed 3 of 3 measures; 344 req/s passed 3 and failed 0 of 3 measures"
	if err != nil || r.Inconclusive != want {
		t.Errorf("err %v, cannot tell %q; want %q", err, r.Inconclusive, want)
	}
}

// TestSearchUnmetOnABusyMachine: the lowest rate failing only on a busy machine is not "the SLOs
// are not met": the search cannot tell.
func TestSearchUnmetOnABusyMachine(t *testing.T) {
	sc := &script{capacity: 0, outcomes: map[float64]string{40: "ddd", 20: "ddd", 10: "ddd"}}
	o := DefaultOptions()
	o.Start = 40
	r, err := Search(context.Background(), o, sc.measure)
	if err != nil || !strings.Contains(r.Inconclusive, "10 req/s failed only while the machine was disturbed") || r.Rate != 0 {
		t.Errorf("err %v, %+v", err, r)
	}
	if !strings.Contains(r.Summary(), "capacity below 10 req/s as measured") {
		t.Errorf("summary:\n%s", r.Summary())
	}
}

// TestSearchStoppedMidContradiction: a search stopped (--max-steps) before a contradiction was
// measured again cannot tell, and says the contradiction rather than a bracket's width.
func TestSearchStoppedMidContradiction(t *testing.T) {
	sc := &script{capacity: 1000, outcomes: map[float64]string{750: "fp"}}
	o := DefaultOptions()
	o.Start, o.MaxSteps = 750, 2
	r, err := Search(context.Background(), o, sc.measure)
	if err != nil || r.Stopped != "--max-steps 2 reached" || r.Inconclusive != "the steps contradict each other: 750 req/s both passed and failed" {
		t.Errorf("err %v, stopped %q, cannot tell %q", err, r.Stopped, r.Inconclusive)
	}
}
