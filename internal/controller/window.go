package controller

import (
	"time"

	"github.com/crankshaft/crankshaft/internal/api"
)

// markOutsideLoad marks the servers' samples that do not belong to the measured window [from, to]
// as warm-up (before it) or cool-down (after it). A sample is taken at the end of the interval it
// covers (a CPU share, a counter's rate since the previous sample of its name), so it belongs to
// the window when its whole interval does: the first sample after the window opens covers mostly
// time before it (the idle server before the load began), and counted it drags a short window's
// figures down. The first sample of a name is taken to cover as long as the gap to its next. When
// the window is shorter than any of a name's intervals, the samples taken in it count, so a short
// run still has its servers' figures. Every sample stays in the timeline; summaries use the
// measured ones.
func markOutsideLoad(servers []*instance, from, to time.Time) {
	for _, in := range servers {
		markWindow(in.measured.Measurements, from, to)
	}
}

// markWindow marks ms (one job's samples, in the order taken) against the window [from, to].
func markWindow(ms []api.Measurement, from, to time.Time) {
	byName := map[string][]int{}
	for i, m := range ms {
		if !isOnce(m.Name) {
			byName[m.Name] = append(byName[m.Name], i)
		}
	}
	for _, idx := range byName {
		starts := intervalStarts(ms, idx)
		inside := false
		for k, i := range idx {
			inside = inside || (!starts[k].Before(from) && !ms[i].Timestamp.After(to))
		}
		for k, i := range idx {
			begin := ms[i].Timestamp
			if inside {
				begin = starts[k]
			}
			ms[i].Warmup = ms[i].Warmup || begin.Before(from)
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
