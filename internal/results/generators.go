package results

import (
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/crankshaft/crankshaft/internal/measure"
)

// MaxBehind is how far short of its asked rate a generator may fall: one that achieved less than
// (1 - MaxBehind) of it fell behind, and the run is invalid (docs/DISTRIBUTED.md).
const MaxBehind = 0.05

// Generator is one load generator of a service that ran on several endpoints: its share of the
// load, its own figures, its measured window on the controller's clock, and whether it kept up.
type Generator struct {
	Endpoint string  `json:"endpoint"`
	Weight   float64 `json:"weight,omitempty"`
	// Share is its part of the service's split variables (rate, connections).
	Share map[string]int `json:"share,omitempty"`
	// Results are its own figures, summarized from its timeline alone, with the rate it was
	// asked for (load/asked-rate) and how late its window began (load/start-late).
	Results map[string]float64 `json:"results"`
	// Start and End are its measured window on the controller's clock (zero when its tool does
	// not say).
	Start time.Time `json:"start,omitzero"`
	End   time.Time `json:"end,omitzero"`
	// FellBehind: it achieved less than 1 - MaxBehind of the rate it was asked for.
	FellBehind bool `json:"fellBehind,omitempty"`
	// Failed says why it has no figures: it died, or its agent stopped answering.
	Failed string `json:"failed,omitempty"`
	// Histogram is its latency histogram (microseconds, HdrHistogram V2 compressed, base64).
	Histogram string `json:"histogram,omitempty"`
	// NotMeasured are its figures that were not finite numbers, with why (Finite).
	NotMeasured map[string]string `json:"notMeasured,omitempty"`
}

// Behind tells whether achieved falls more than MaxBehind short of asked (never with asked 0).
func Behind(asked, achieved float64) bool {
	return asked > 0 && achieved < (1-MaxBehind)*asked
}

// BehindMessage names a generator that fell behind, with its figures.
func (g Generator) BehindMessage(service string) string {
	asked, done := g.Results[measure.LoadAskedRate], g.Results[measure.RPS]
	return fmt.Sprintf("%s: the generator on %s fell behind: %s of the %s req/s asked (%.1f %%, more than %.0f %% short); the run is invalid",
		service, g.Endpoint, Format(done, "n0"), Format(asked, "n0"), 100*done/asked, 100*MaxBehind)
}

// LatencyFigures are a latency histogram's figures (recorded in microseconds) in milliseconds,
// by catalog name: what the built-in generator reports and what a merge of generators reports.
func LatencyFigures(h *hdrhistogram.Histogram) map[string]float64 {
	if h.TotalCount() == 0 {
		return map[string]float64{}
	}
	ms := func(us int64) float64 { return float64(us) / 1000 }
	return map[string]float64{
		measure.LatencyMean: h.Mean() / 1000,
		measure.Latency50:   ms(h.ValueAtQuantile(50)),
		measure.Latency75:   ms(h.ValueAtQuantile(75)),
		measure.Latency90:   ms(h.ValueAtQuantile(90)),
		measure.Latency95:   ms(h.ValueAtQuantile(95)),
		measure.Latency99:   ms(h.ValueAtQuantile(99)),
		measure.LatencyMax:  ms(h.Max()),
	}
}

// MergeHistograms decodes the generators' histograms and adds them into one: the latencies of
// every request of every generator.
func MergeHistograms(encoded []string) (*hdrhistogram.Histogram, error) {
	var all *hdrhistogram.Histogram
	for i, e := range encoded {
		h, err := hdrhistogram.Decode([]byte(e))
		if err != nil {
			return nil, fmt.Errorf("histogram %d: %w", i+1, err)
		}
		if all == nil {
			all = h
			continue
		}
		if dropped := all.Merge(h); dropped > 0 {
			return nil, fmt.Errorf("histogram %d: %d latencies outside the range of the first", i+1, dropped)
		}
	}
	if all == nil {
		return nil, fmt.Errorf("no histogram to merge")
	}
	return all, nil
}

// FellBehind lists the generators of a run's results that fell behind their rate, each named: a
// run with one is invalid.
func FellBehind(jobs map[string]*JobResult) []string {
	var out []string
	for _, name := range slices.Sorted(maps.Keys(jobs)) {
		if jobs[name] == nil {
			continue
		}
		for _, g := range jobs[name].Generators {
			if g.FellBehind {
				out = append(out, g.BehindMessage(name))
			}
		}
	}
	return out
}

// ShortOfRate says, for each load that asked a rate and did less than 1 - MaxBehind of it (a
// bombardier -r that did 843 of the 1,000 req/s asked), how far short it fell: its latency is
// that of the rate it did, not of the rate asked. A load on several generators is said by
// FellBehind, generator by generator, instead.
func ShortOfRate(jobs map[string]*JobResult) []string {
	var out []string
	for _, name := range slices.Sorted(maps.Keys(jobs)) {
		jr := jobs[name]
		if jr == nil || len(jr.Generators) > 0 {
			continue
		}
		asked, done := jr.Results[measure.LoadAskedRate], jr.Results[measure.RPS]
		if !Behind(asked, done) {
			continue
		}
		out = append(out, fmt.Sprintf("%s reached %s of the %s req/s asked (load/rate-reached %.1f %%, under %.0f %%): the load did not keep up with its rate, and its latency is that of the rate it did",
			name, Format(done, "n0"), Format(asked, "n0"), 100*done/asked, 100*(1-MaxBehind)))
	}
	return out
}
