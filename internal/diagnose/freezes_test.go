package diagnose

import (
	"strings"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/measure"
)

// freezing is issue 44's second wrong case in figures: the built-in generator at a fixed 1,000
// req/s for 20 s against a server that freezes 500 ms every 5 s: p50 0.12 ms, p99 452 ms, max
// 503 ms. p99s gives each second's p99 (nil: no timeline).
func freezing(p99s func(s int) float64) map[string]fakeJob {
	res := map[string]float64{measure.RPS: 998, measure.Requests: 19960, measure.BadResponses: 0, measure.Errors: 0,
		measure.Latency50: 0.12, measure.Latency99: 452, measure.LatencyMax: 503, measure.LatencyMean: 25}
	var tl []api.Measurement
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for s := 0; p99s != nil && s < 20; s++ {
		end := at.Add(time.Duration(s+1) * time.Second)
		tl = append(tl, api.Measurement{Name: measure.BuiltinRPSPerSecond, Timestamp: end, Value: 1000},
			api.Measurement{Name: measure.BuiltinLatency99PerSecond, Timestamp: end, Value: p99s(s)})
	}
	return map[string]fakeJob{
		"application": {raw: []float64{5}, global: 10, cores: 2, host: "box"},
		"load": {raw: []float64{8}, global: 10, cores: 2, host: "box", vars: map[string]any{"connections": 32, "rate": 1000},
			results: res, extra: tl},
	}
}

// TestFreezesNotRateCapped: the freezing server is "periodic freezes", with their period and
// length, not "rate-capped: raise the rate" (what main said), which is said beside it.
func TestFreezesNotRateCapped(t *testing.T) {
	every5 := func(s int) float64 {
		if s%5 == 2 {
			return 480
		}
		return 0.2
	}
	got := check(t, freezing(every5), want{Freezes, []string{
		"periodic freezes: the server stopped answering about every 5 s for up to about 503 ms",
		"4 of the 20 seconds of load's timeline (builtin/latency-per-second/99) carry the tail, in 4 episodes",
		"load's p99 452 ms is 3,767x its p50 0.12 ms (max 503 ms)"}},
		want{RateCapped, nil})
	if f := figure(t, got[0], "load", "freeze period"); f.Value != 5 {
		t.Errorf("period %+v, want 5 s", f)
	}
	figure(t, got[0], "load", measure.LatencyMax)
}

// Without a timeline the tail cannot be told a pause from a slow path: long-tail says so and what
// tells; a tail in every second is a slow path, not a freeze; a tail short of TailMin is no verdict.
func TestLongTail(t *testing.T) {
	check(t, freezing(nil), want{LongTail, []string{"this run cannot tell which: a per-second latency timeline tells"}}, want{RateCapped, nil})
	check(t, freezing(func(int) float64 { return 450 }), want{LongTail, []string{"in 20 of the 20 seconds", "slow path"}}, want{RateCapped, nil})
	short := freezing(nil)
	short["load"].results[measure.Latency99], short["load"].results[measure.LatencyMax] = 5, 8
	check(t, short, want{RateCapped, nil})
}

// A tail in every second on a machine other work kept busy (the built-in generator at 1,000 req/s
// against a server sleeping 1 ms beside two busy cores: p99 179 ms, 129x its p50, in 3 of 3
// seconds) is no slow path the run can name: machine-busy, the tail and the cap beside it; so is
// a tail no timeline places (wrk, one connection, beside a busy core: p99 170x its p50, read
// long-tail first in the busy conformance pass of 2026-11-30). A freeze stands on a busy machine.
func TestSteadyTailOnBusyMachine(t *testing.T) {
	busy := func(jobs map[string]fakeJob) map[string]fakeJob {
		for name, j := range jobs {
			j.global = 95
			jobs[name] = j
		}
		return jobs
	}
	check(t, busy(freezing(func(int) float64 { return 450 })), want{MachineBusy, nil}, want{LongTail, []string{"slow path"}}, want{RateCapped, nil})
	check(t, busy(freezing(nil)), want{MachineBusy, nil}, want{LongTail, []string{"this run cannot tell which"}}, want{RateCapped, nil})
	paused := busy(freezing(func(s int) float64 { return map[bool]float64{true: 480, false: 0.2}[s%5 == 2] }))
	check(t, paused, want{Freezes, nil}, want{RateCapped, nil}, want{MachineBusy, nil})
}

// A tail whose timeline has requests/s only: the seconds the requests/s fell by a quarter are the
// pauses.
func TestFreezesFromRequestsPerSecond(t *testing.T) {
	jobs := freezing(nil)
	l := jobs["load"]
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for s := range 12 {
		v := 1000.0
		if s%4 == 1 {
			v = 500
		}
		l.extra = append(l.extra, api.Measurement{Name: measure.BuiltinRPSPerSecond, Timestamp: at.Add(time.Duration(s) * time.Second), Value: v})
	}
	jobs["load"] = l
	got := check(t, jobs, want{Freezes, []string{"about every 4 s", "3 of the 12 seconds", "(builtin/requests-per-second)"}}, want{RateCapped, nil})
	if strings.Contains(got[0].Message, "raise") {
		t.Errorf("advice to raise: %s", got[0].Message)
	}
}

// TestTailBeyondThePercentile: a load that sends no more than its connections while the server
// is stopped (bombardier -r at 1,000 req/s against the server freezing 500 ms every 5 s, the
// quiet conformance run of 2026-11-29) leaves the p99 near the median: fewer than 1 % of the
// requests waited. Their wait is the mean (3.17 ms, above the p99), and "requests wait" read from
// that mean was a wrong verdict; it is a tail beyond the p99, which this run cannot tell from a
// slow path, and says so.
func TestTailBeyondThePercentile(t *testing.T) {
	jobs := freezing(nil)
	l := jobs["load"].results
	l[measure.RPS], l[measure.Latency50], l[measure.Latency99], l[measure.LatencyMean], l[measure.LatencyMax] = 924, 0.25, 1.2, 3.17, 503
	check(t, jobs, want{LongTail, []string{"load's mean latency 3.17 ms is above its p99 1.20 ms, and its max 503 ms 419x the p99",
		"this run cannot tell which: a per-second latency timeline tells"}})
	// A max 50x the p99, the mean above the p99 (1.5 ms: as high as 1 % of requests at 60 ms at
	// most can lift it): no tail beyond it.
	l[measure.LatencyMax], l[measure.LatencyMean] = 60, 1.5
	if got := Diagnose(runOf(jobs), DefaultThresholds()); len(got) > 0 && got[0].Kind == LongTail {
		t.Errorf("max 50x the p99: %s, want no long-tail", show(got))
	}
	// The p99 caught part of the wait (8 ms, 32x the p50: short of TailRatio, and the max only
	// 63x it): the mean, 13x the p50, is still carried by a minority. "Requests wait" read from
	// it would be wrong again.
	l[measure.Latency99], l[measure.LatencyMean], l[measure.LatencyMax] = 8, 3.26, 502
	check(t, jobs, want{LongTail, []string{"load's mean latency 3.26 ms is 13x its p50 0.25 ms (p99 8.00 ms), and its max 502 ms 2,008x the p50"}})
	// The same cell in make measure of f001718: the mean 6.5x the p50, the max 875x it, read
	// "requests wait" at the rule's 10x; at 5x the upper half of the requests carries nine tenths of
	// the wait.
	l[measure.Latency50], l[measure.Latency99], l[measure.LatencyMean], l[measure.LatencyMax] = 0.567, 10, 3.67, 496
	check(t, jobs, want{LongTail, []string{"load's mean latency 3.67 ms is 6x its p50 0.57 ms (p99 10.0 ms), and its max 496 ms 875x the p50"}})
	// A mean a few times the median is no tail: an exponential's is 1.44 times.
	l[measure.LatencyMean] = 2.2
	if got := Diagnose(runOf(jobs), DefaultThresholds()); len(got) > 0 && got[0].Kind == LongTail {
		t.Errorf("mean 3.9x the p50: %s, want no long-tail", show(got))
	}
}

// A tail on a machine the run's own jobs filled (the shipped plaintext scenario, wrk beside the
// app on 2 cores, 2026-11-30: p99 70.1 ms, 321x its p50 0.22 ms) is as much the starved
// connections' as a slow path's: machine-saturated, what limited the run, comes first and the tail
// beside it; "long-tail" first was a wrong verdict. A freeze the timeline shows stays first.
func TestTailOnASaturatedMachine(t *testing.T) {
	full := func(tl func(int) float64) map[string]fakeJob {
		jobs := freezing(tl)
		for name, j := range jobs {
			j.raw, j.global = []float64{96}, 98
			delete(j.vars, "rate")
			jobs[name] = j
		}
		l := jobs["load"].results
		l[measure.Latency50], l[measure.Latency99], l[measure.LatencyMax], l[measure.LatencyMean] = 0.22, 70.1, 83, 1.9
		return jobs
	}
	check(t, full(nil), want{MachineSaturated, []string{"together fill the machine"}},
		want{LongTail, []string{"load's p99 70.1 ms is 319x its p50 0.22 ms", "this run cannot tell which"}})
	check(t, full(func(int) float64 { return 60 }), want{MachineSaturated, nil}, want{LongTail, []string{"slow path"}})
	paused := full(func(s int) float64 { return map[bool]float64{true: 80, false: 0.3}[s%5 == 2] })
	check(t, paused, want{Freezes, nil})
}
