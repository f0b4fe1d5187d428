package controller

import (
	"time"

	"github.com/crankshaft/crankshaft/internal/api"
)

// markOutsideLoad marks the servers' samples that do not belong to the measured window [from, to]
// as warm-up (before it) or cool-down (after it); the load began at began (its warm-up included).
// A sample is taken at the end of the interval it covers (a CPU share, a counter's rate since its
// source's previous tick), so a sample taken in the window counts unless its interval reaches
// back before the load began: the first sample after a window opened with no warm-up covers mostly
// the idle server, and counted it read the application's counter 0.75x the load over a 2 s window
// cut by Ctrl-C. A sample that covers the load's warm-up and the window's start covers a loaded
// server and counts, as before. When no sample of a name qualifies (a window shorter than its
// interval), the samples taken in the window count, so a short run still has its servers' figures.
// Every sample stays in the timeline; summaries use the measured ones. It returns, for each
// server (in order), how far back before the load the samples its figures had to count reach (0:
// none did).
func markOutsideLoad(servers []*instance, began, from, to time.Time) []time.Duration {
	idle := make([]time.Duration, len(servers))
	for i, in := range servers {
		idle[i] = markWindow(in.measured.Measurements, began, from, to)
	}
	return idle
}

// warnIdle says which servers' figures count samples reaching back before the load began (a
// window shorter than the sampling interval): their CPU and counters read low by that share.
// idle is markOutsideLoad's answer for servers.
func (c *Controller) warnIdle(servers []*instance, idle []time.Duration, from, to time.Time) {
	for i, in := range servers {
		d := idle[i]
		if d <= 0 {
			continue
		}
		c.progress(in.service, "warning: the measured window (%s) is shorter than the sampling interval: the figures "+
			"sampled on %s (CPU, the counters' rates) cover up to %s before the load began, the idle server, so they read low; "+
			"run longer or sample more often (--interval)", to.Sub(from).Round(10*time.Millisecond), in.url, d.Round(10*time.Millisecond))
	}
}

// markWindow marks ms (one job's samples, in the order taken) against the window [from, to] of a
// load that began at began, and returns how far back before began the samples it had to count
// reach (0 when every name had a sample of loaded time only).
func markWindow(ms []api.Measurement, began, from, to time.Time) time.Duration {
	byName := map[string][]int{}
	for i, m := range ms {
		if !isOnce(m.Name) {
			byName[m.Name] = append(byName[m.Name], i)
		}
	}
	starts := intervalStarts(ms)
	var reach time.Duration
	for _, idx := range byName {
		someLoaded := false // a sample in the window covers no time before the load began
		for _, i := range idx {
			someLoaded = someLoaded || (!starts[i].Before(began) && !ms[i].Timestamp.Before(from) && !ms[i].Timestamp.After(to))
		}
		for _, i := range idx {
			idle := someLoaded && starts[i].Before(began)
			ms[i].Warmup = ms[i].Warmup || ms[i].Timestamp.Before(from) || idle
			ms[i].Cooldown = ms[i].Timestamp.After(to)
			if !ms[i].Warmup && !ms[i].Cooldown && starts[i].Before(began) {
				reach = max(reach, began.Sub(starts[i]))
			}
		}
	}
	return reach
}

// intervalStarts gives, for each sample ms[i], when the interval it covers began. Samples taken
// together (one sampler's or scraper's tick: the same timestamp) cover the same interval, which began at that source's previous tick: the latest previous sample of any name
// taken at that instant. So a name that first appears in the middle of a run (the GC pause p99, only
// once a GC happened) covers its tick's second, not the gap to its next appearance, which read as
// reaching back before the load and left a loaded sample out (its measured phase then began a
// second late in InfluxDB). A tick with no previous one (the job's first) covers as long as the gap
// to its next; a lone sample covers nothing before it.
func intervalStarts(ms []api.Measurement) []time.Time {
	prev, next := neighbours(ms)
	starts := make([]time.Time, len(ms))
	for i, m := range ms {
		t := m.Timestamp
		switch tick := t.UnixNano(); {
		case !prev[tick].IsZero():
			starts[i] = prev[tick]
		case !next[tick].IsZero():
			starts[i] = t.Add(-next[tick].Sub(t))
		default:
			starts[i] = t
		}
	}
	return starts
}

// neighbours gives, for each instant samples were taken at (in Unix nanoseconds), the previous and
// the next tick of the source that took them: the latest previous and the earliest next sample of
// the names taken at that instant (samples taken once are not ticks).
func neighbours(ms []api.Measurement) (prev, next map[int64]time.Time) {
	prev, next = map[int64]time.Time{}, map[int64]time.Time{}
	last := map[string]time.Time{}
	for _, m := range ms {
		if isOnce(m.Name) {
			continue
		}
		tick := m.Timestamp.UnixNano()
		if p, ok := last[m.Name]; ok && p.Before(m.Timestamp) {
			if p.After(prev[tick]) {
				prev[tick] = p
			}
			if n := next[p.UnixNano()]; n.IsZero() || m.Timestamp.Before(n) {
				next[p.UnixNano()] = m.Timestamp
			}
		}
		last[m.Name] = m.Timestamp
	}
	return prev, next
}
