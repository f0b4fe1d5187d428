package controller

import (
	"strconv"
	"strings"
	"time"
)

// startLead is how long after the loads are launched their measured windows begin, beyond their
// longest warm-up: time for every agent to take its job, start the generator and let it connect.
const startLead = 2 * time.Second

// startAtParser is the parser of the one load tool that waits for a start it is given (crank
// load's --start-at, CRANK_LOAD_START_AT): wrk, bombardier and h2load start when started.
const startAtParser = "builtin"

// oneStart gives the generators of every load split across endpoints one start for their
// measured windows: now plus startLead plus the longest warm-up among them, on the controller's
// clock, told to each agent on its own clock (the offset measured when it was first read). It
// returns that start (zero when no load is split). Only generators that wait for it are given one:
// a tool that starts at once would otherwise have its whole window counted before the start, and
// the servers' samples of that window taken for warm-up.
func oneStart(loads []*instance, now time.Time) time.Time {
	var split []*instance
	lead := time.Duration(0)
	for _, in := range loads {
		if in.share != nil && in.job.Parser == startAtParser {
			split = append(split, in)
			lead = max(lead, warmupOf(in.job.WarmupArguments, in.job.Warmup.Std(), in.job.Variables))
		}
	}
	if len(split) == 0 {
		return time.Time{}
	}
	at := now.Add(startLead + lead)
	for _, in := range split {
		local := at.Add(in.clockOffset)
		in.job.StartAt = &local
	}
	return at
}

// warmupOf is how long a load warms up before its measured run: its job's warmup, plus its warm-up
// run's length when it has one (the `warmup` variable in seconds, as the shipped load jobs name
// it; config's default timeout reads it the same way).
func warmupOf(warmupArgs string, warmup time.Duration, vars map[string]any) time.Duration {
	if strings.TrimSpace(warmupArgs) == "" {
		return warmup
	}
	var secs float64
	switch v := vars["warmup"].(type) {
	case int:
		secs = float64(v)
	case float64:
		secs = v
	case string:
		secs, _ = strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), "s"), 64)
	}
	return warmup + time.Duration(max(secs, 0)*float64(time.Second))
}
