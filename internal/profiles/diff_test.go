package profiles

import (
	"testing"
	"time"

	"github.com/google/pprof/profile"
)

// cpuProfile is a CPU profile with one sample of ns nanoseconds in each function, recorded from
// start for dur.
func cpuProfile(start time.Time, dur time.Duration, ns map[string]int64) *profile.Profile {
	p := &profile.Profile{
		SampleType:    []*profile.ValueType{{Type: "cpu", Unit: "nanoseconds"}},
		TimeNanos:     start.UnixNano(),
		DurationNanos: int64(dur),
	}
	for name, v := range ns {
		fn := &profile.Function{ID: uint64(len(p.Function) + 1), Name: name}
		loc := &profile.Location{ID: fn.ID, Line: []profile.Line{{Function: fn}}}
		p.Function, p.Location = append(p.Function, fn), append(p.Location, loc)
		p.Sample = append(p.Sample, &profile.Sample{Location: []*profile.Location{loc}, Value: []int64{v}})
	}
	return p
}

func TestCoverage(t *testing.T) {
	from := time.Unix(1_800_000_000, 0)
	to := from.Add(10 * time.Second)
	for _, c := range []struct {
		name       string
		start, dur time.Duration // from from
		want       float64
	}{
		{"the whole run", 0, 10 * time.Second, 1},
		{"beyond both ends", -time.Second, 12 * time.Second, 1},
		{"the second half and an idle tail", 5 * time.Second, 10 * time.Second, 0.5},
		{"a quarter inside", 2 * time.Second, 2500 * time.Millisecond, 0.25},
		{"before the run", -5 * time.Second, 5 * time.Second, 0},
		{"after the run", 10 * time.Second, time.Second, 0},
	} {
		p := cpuProfile(from.Add(c.start), c.dur, map[string]int64{"f": 1})
		if got := Coverage(p, from, to); got != c.want {
			t.Errorf("%s: coverage %v, want %v", c.name, got, c.want)
		}
	}
	if got := Coverage(cpuProfile(time.Unix(0, 0), 0, nil), from, to); got != 0 {
		t.Errorf("a profile without its window: coverage %v, want 0 (unknown)", got)
	}
	if got := Coverage(cpuProfile(from, time.Second, nil), to, from); got != 0 {
		t.Errorf("an empty run: coverage %v, want 0", got)
	}
}

// A profile that covers half the run gives a function its whole time a request once divided by
// the requests in its window; over all the run's requests it reads half.
func TestDiffPerRequestInTheWindow(t *testing.T) {
	from := time.Unix(1_800_000_000, 0)
	to := from.Add(10 * time.Second)
	const requests = 50_000 // 5,000/s over the 10 s run
	// Base: 20 µs a request in main.handle; head: 200 µs more in main.spinUnderLock. Each
	// profile covers the run's second half (25,000 requests) and a second of idle tail after it.
	base := cpuProfile(from.Add(5*time.Second), 6*time.Second, map[string]int64{"main.handle": 25_000 * 20_000})
	head := cpuProfile(from.Add(5*time.Second), 6*time.Second, map[string]int64{"main.handle": 25_000 * 20_000, "main.spinUnderLock": 25_000 * 200_000})
	bc, hc := Coverage(base, from, to), Coverage(head, from, to)
	if bc != 0.5 || hc != 0.5 {
		t.Fatalf("coverage %v and %v, want 0.5", bc, hc)
	}
	got := Diff(base, head, requests*bc, requests*hc, 5)
	if len(got) != 1 || got[0].Name != "main.spinUnderLock" || got[0].Base != 0 || got[0].Head != 200_000 {
		t.Fatalf("diff %+v, want main.spinUnderLock 0 -> 200,000 ns a request (main.handle unchanged)", got)
	}
	low := Diff(base, head, requests, requests, 5)
	if len(low) != 1 || low[0].Head != 100_000 {
		t.Fatalf("over all the run's requests: %+v, want 100,000 ns a request (half)", low)
	}
}
