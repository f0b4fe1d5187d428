package controller

import (
	"time"

	"github.com/crankshaft/crankshaft/internal/api"
)

// markOutsideLoad marks the servers' samples that do not belong to the measured window [from, to]
// as warm-up (before it) or cool-down (after it); the load began at began (its warm-up included).
// A sample is taken at the end of the interval it covers (a CPU share, a counter's rate since the
// previous sample of its name), so a sample taken in the window counts unless its interval reaches
// back before the load began: the first sample after a window opened with no warm-up covers mostly
// the idle server, and counted it read the application's counter 0.75x the load over a 2 s window
// cut by Ctrl-C. A sample that covers the load's warm-up and the window's start covers a loaded
// server and counts, as before. The first sample of a name is taken to cover as long as the gap to
// its next. When no sample of a name qualifies (a window shorter than its interval), the samples
// taken in the window count, so a short run still has its servers' figures. Every sample stays in
// the timeline; summaries use the measured ones.
func markOutsideLoad(servers []*instance, began, from, to time.Time) {
	for _, in := range servers {
		markWindow(in.measured.Measurements, began, from, to)
	}
}

// markWindow marks ms (one job's samples, in the order taken) against the window [from, to] of a
// load that began at began.
func markWindow(ms []api.Measurement, began, from, to time.Time) {
	byName := map[string][]int{}
	for i, m := range ms {
		if !isOnce(m.Name) {
			byName[m.Name] = append(byName[m.Name], i)
		}
	}
	for _, idx := range byName {
		starts := intervalStarts(ms, idx)
		someLoaded := false // a sample in the window covers no time before the load began
		for k, i := range idx {
			someLoaded = someLoaded || (!starts[k].Before(began) && !ms[i].Timestamp.Before(from) && !ms[i].Timestamp.After(to))
		}
		for k, i := range idx {
			idle := someLoaded && starts[k].Before(began)
			ms[i].Warmup = ms[i].Warmup || ms[i].Timestamp.Before(from) || idle
			ms[i].Cooldown = ms[i].Timestamp.After(to)
		}
	}
}

// intervalStarts gives, for each sample ms[idx[k]] of one name, when the interval it covers
// began: the previous sample's time, and for the first, its own time less the gap to the next.
func intervalStarts(ms []api.Measurement, idx []int) []time.Time {
	starts := make([]time.Time, len(idx))
	for k, i := range idx {
		switch {
		case k > 0:
			starts[k] = ms[idx[k-1]].Timestamp
		case len(idx) > 1:
			starts[k] = ms[i].Timestamp.Add(-ms[idx[1]].Timestamp.Sub(ms[i].Timestamp))
		default:
			starts[k] = ms[i].Timestamp
		}
	}
	return starts
}
