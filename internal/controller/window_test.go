package controller

import (
	"slices"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/measure"
)

// phases writes each sample's mark: w (warm-up), m (measured) or c (cool-down).
func phases(ms []api.Measurement) string {
	out := ""
	for _, m := range ms {
		switch {
		case m.Warmup:
			out += "w"
		case m.Cooldown:
			out += "c"
		default:
			out += "m"
		}
	}
	return out
}

func TestWindowLeavesOutTheIdleServer(t *testing.T) {
	t0 := time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	samples := func(name string, times ...int) []api.Measurement {
		var ms []api.Measurement
		for _, x := range times {
			ms = append(ms, api.Measurement{Name: name, Timestamp: at(x), Value: 1})
		}
		return ms
	}
	cases := []struct {
		name            string
		ms              []api.Measurement
		began, from, to int
		want            string
	}{
		// No warm-up: the sample 300 ms after the window opens covers 700 ms of the idle server.
		{"interrupted after 2 s", samples(measure.CPU, -700, 300, 1300, 2300), 0, 0, 2000, "wwmc"},
		{"ten seconds", samples(measure.CPU, -700, 300, 1300, 2300, 3300, 4300, 5300, 6300, 7300, 8300, 9300, 10300), 0, 0, 10000, "wwmmmmmmmmmc"},
		// After 1 s of the load's warm-up, that sample covers a loaded server: it counts.
		{"after warm-up", samples(measure.CPU, -700, 300, 1300, 2300), -1000, 0, 2000, "wmmc"},
		{"after a short warm-up", samples(measure.CPU, -700, 300, 1300, 2300), -500, 0, 2000, "wwmc"},
		// The first tick is taken to cover as long as the gap to the next.
		{"first sample", samples(measure.CPU, 500, 1500, 2500), 0, 0, 3000, "wmm"},
		{"first sample inside", samples(measure.CPU, 1000, 2000, 3000), 0, 0, 3000, "mmm"},
		// A window shorter than any interval keeps the samples taken in it.
		{"short window", samples(measure.CPU, -700, 300, 1300), 0, 0, 500, "wmc"},
		{"one sample", samples(measure.CPU, 300), 0, 0, 500, "m"},
		// Two names sampled at their own times are each judged by their own intervals.
		{"two names", append(samples(measure.CPU, -700, 300, 1300, 2300), samples(measure.RequestsPerSecond, -200, 800, 1800)...), 0, 0, 2000, "wwmcwwm"},
		// A name that first appears mid-run (the GC pause p99, once a GC happened) covers its tick's
		// second, taken with the names sampled at that instant, not the gap to its next appearance.
		{"a name first seen mid-run", append(samples(measure.RequestsPerSecond, -700, 300, 1300, 2300, 3300, 4300), samples(measure.GCPauseP99, 1300, 3300)...), 0, 0, 4000, "wwmmmcmm"},
		{"a name first seen in the first tick", append(samples(measure.RequestsPerSecond, 500, 1500, 2500), samples(measure.GCPauseP99, 500, 2500)...), 0, 0, 3000, "wmmwm"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ms := slices.Clone(c.ms)
			markWindow(ms, at(c.began), at(c.from), at(c.to))
			if got := phases(ms); got != c.want {
				t.Errorf("marks %s, want %s", got, c.want)
			}
		})
	}
}

func TestWindowKeepsMarksAndOnceFigures(t *testing.T) {
	t0 := time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)
	ms := []api.Measurement{
		{Name: measure.BuildTime, Timestamp: t0.Add(-time.Minute), Value: 3},
		{Name: measure.CPU, Timestamp: t0.Add(time.Second), Value: 1, Warmup: true}, // the agent's own warm-up
		{Name: measure.CPU, Timestamp: t0.Add(2 * time.Second), Value: 1},
		{Name: measure.CPU, Timestamp: t0.Add(3 * time.Second), Value: 1},
	}
	markWindow(ms, t0, t0, t0.Add(5*time.Second))
	if got := phases(ms); got != "mwmm" {
		t.Errorf("marks %s, want mwmm (the build time is not a sample, the agent's warm-up stays)", got)
	}
}

// The window ends when the first load's process exited, on the controller's clock, not when the
// controller saw it: a server's sample taken between the two covers an idle tail.
func TestWindowEndsAtTheLoadsOwnEnd(t *testing.T) {
	t0 := time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC)
	seen := t0.Add(2300 * time.Millisecond) // a status read after the tick at 2.2 s
	ended := func(ms int, offset time.Duration) *instance {
		at := t0.Add(time.Duration(ms)*time.Millisecond + offset) // the agent's clock
		return &instance{clockOffset: offset, status: api.JobStatus{MeasuredEnd: &at}}
	}
	cases := []struct {
		name  string
		loads []*instance
		want  time.Time
	}{
		{"no end reported (an older agent)", []*instance{{}}, seen},
		{"its own end", []*instance{ended(2050, 0)}, t0.Add(2050 * time.Millisecond)},
		{"an agent 3 s ahead", []*instance{ended(2050, 3*time.Second)}, t0.Add(2050 * time.Millisecond)},
		{"the first of two", []*instance{ended(2100, 0), ended(1900, -time.Second)}, t0.Add(1900 * time.Millisecond)},
		{"an end after it was seen (clock noise) keeps what was seen", []*instance{ended(2400, 0)}, seen},
	}
	for _, c := range cases {
		if got := measuredEnd(c.loads, seen); !got.Equal(c.want) {
			t.Errorf("%s: window ends %s after t0, want %s", c.name, got.Sub(t0), c.want.Sub(t0))
		}
	}
	// The tick at 2.2 s covers [1.2, 2.2]: with the load over at 2.05 s it is cool-down.
	ms := []api.Measurement{{Name: measure.CPU, Timestamp: t0.Add(200 * time.Millisecond)},
		{Name: measure.CPU, Timestamp: t0.Add(1200 * time.Millisecond)}, {Name: measure.CPU, Timestamp: t0.Add(2200 * time.Millisecond)}}
	markWindow(ms, t0, t0, measuredEnd([]*instance{ended(2050, 0)}, seen))
	if got := phases(ms); got != "wmc" {
		t.Errorf("marks %s, want wmc", got)
	}
}

// A window shorter than the sampling interval counts samples that reach back before the load
// began; markWindow says how far, so that the run can say its servers' figures read low.
func TestWindowSaysHowFarItsSamplesReachBack(t *testing.T) {
	t0 := time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	cpu := func(times ...int) []api.Measurement {
		var ms []api.Measurement
		for _, x := range times {
			ms = append(ms, api.Measurement{Name: measure.CPU, Timestamp: at(x)})
		}
		return ms
	}
	cases := []struct {
		name            string
		ms              []api.Measurement
		began, from, to int
		want            time.Duration
	}{
		{"a 1 s run sampled each second", cpu(-810, 190, 1190), 0, 0, 1020, 810 * time.Millisecond},
		{"a 2 s run has a sample of loaded time", cpu(-700, 300, 1300, 2300), 0, 0, 2000, 0},
		{"after a warm-up", cpu(-700, 300, 1300), -1000, 0, 1000, 0},
		{"a lone sample covers nothing before it", cpu(300), 0, 0, 500, 0},
	}
	for _, c := range cases {
		if got := markWindow(slices.Clone(c.ms), at(c.began), at(c.from), at(c.to)); got != c.want {
			t.Errorf("%s: reaches back %s, want %s", c.name, got, c.want)
		}
	}
}
