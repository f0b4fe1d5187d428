package controller

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/measure"
	"github.com/crankshaft/crankshaft/internal/results"
)

// generators fills in a load that ran on several endpoints (docs/DISTRIBUTED.md): each
// generator's share, own figures, window (on the controller's clock) and rates; the latency
// figures of the whole from the generators' merged histograms when every one gave one (else the
// reduction's, marked approximate); the spread of the windows; the rate asked in all. A part no
// real run can give (implausiblePart) is not merged: ImplausiblePart names its agent and figures.
func generators(jr *results.JobResult, ins []*instance) error {
	catalog := measure.Default()
	var hists []string
	var starts, ends []time.Time
	asked := 0.0
	latest, planned := time.Duration(math.MinInt64), false
	for _, in := range ins {
		own, err := results.Summarize(jr.Metadata, [][]api.Measurement{in.measured.Measurements})
		if err != nil {
			return fmt.Errorf("generator on %s: %w", in.url, err)
		}
		if why := implausiblePart(own, in.measured.Load); len(why) > 0 {
			return &ImplausiblePart{Service: in.service, Endpoint: in.url, Why: why, in: in}
		}
		g := results.Generator{Endpoint: in.url, Results: own}
		if in.share != nil {
			g.Weight, g.Share = in.share.Weight, in.share.Variables
		}
		if lr := in.measured.Load; lr != nil {
			g.Histogram = lr.Histogram
			g.FellBehind = results.Behind(lr.AskedRate, lr.AchievedRate)
			if lr.AskedRate > 0 {
				own[measure.LoadAskedRate] = lr.AskedRate
				asked += lr.AskedRate
			}
			if !lr.Start.IsZero() {
				g.Start, g.End = lr.Start.Add(-in.clockOffset), lr.End.Add(-in.clockOffset)
				starts, ends = append(starts, g.Start), append(ends, g.End)
				if at := in.job.StartAt; at != nil {
					late := g.Start.Sub(at.Add(-in.clockOffset))
					own[measure.LoadStartLate] = float64(late.Microseconds()) / 1000
					latest = max(latest, late)
					planned = true
				}
			}
		}
		if g.Histogram != "" {
			hists = append(hists, g.Histogram)
		}
		jr.Generators = append(jr.Generators, g)
	}
	var added []api.Metadata
	set := func(name string, v float64) {
		jr.Results[name] = v
		if m, ok := catalog.Lookup(name); ok {
			added = append(added, m)
		}
	}
	if len(hists) == len(ins) {
		all, err := results.MergeHistograms(hists)
		if err != nil {
			return fmt.Errorf("merging the generators' latency histograms: %w", err)
		}
		for name, v := range results.LatencyFigures(all) {
			set(name, v)
		}
	} else {
		approximate(jr, len(ins))
	}
	if len(starts) == len(ins) {
		set(measure.LoadStartSpread, spreadMs(starts))
		set(measure.LoadEndSpread, spreadMs(ends))
	}
	if asked > 0 {
		set(measure.LoadAskedRate, asked)
	}
	if planned {
		set(measure.LoadStartLate, float64(latest.Microseconds())/1000)
	}
	jr.Metadata = results.MergeMetadata(jr.Metadata, added)
	sortByCatalog(jr.Metadata)
	return nil
}

// approximate marks the latency figures reduced across generators without histograms.
func approximate(jr *results.JobResult, n int) {
	for _, md := range jr.Metadata {
		if _, ok := jr.Results[md.Name]; !ok || !strings.Contains(md.Name, "/latency/") || md.Reduce != api.OpMax {
			continue
		}
		if jr.Approximate == nil {
			jr.Approximate = map[string]string{}
		}
		jr.Approximate[md.Name] = fmt.Sprintf("the highest of the %d generators' values; their tool gives no latency histogram to merge", n)
	}
}

// spreadMs is the latest minus the earliest time, in milliseconds.
func spreadMs(ts []time.Time) float64 {
	lo, hi := slices.MinFunc(ts, time.Time.Compare), slices.MaxFunc(ts, time.Time.Compare)
	return float64(hi.Sub(lo).Microseconds()) / 1000
}
