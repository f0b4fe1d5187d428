package results

import (
	"strings"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/measure"
)

// TestSeveralEndpoints: a load on two agents. Its RPS, one summary per agent, is their sum and
// shown as such (not "max, mean" over the two agents, which once read "361,584 max, mean 180,792");
// its CPU, sampled on each agent, shows the highest sample with the higher agent's mean; its CPU
// per request is the CPU of both agents over the RPS of both.
func TestSeveralEndpoints(t *testing.T) {
	at := time.Unix(0, 0)
	agent := func(rps float64, cpus ...float64) []api.Measurement {
		tl := []api.Measurement{{Name: measure.RPS, Timestamp: at, Value: rps}}
		for _, c := range cpus {
			tl = append(tl, api.Measurement{Name: measure.CPURaw, Timestamp: at, Value: c},
				api.Measurement{Name: measure.CPU, Timestamp: at, Value: c / 2})
		}
		return tl
	}
	ms := [][]api.Measurement{agent(1000, 40, 60), agent(3000, 100, 100)}
	cat := measure.Default()
	var md []api.Metadata
	for _, n := range []string{measure.RPS, measure.CPU, measure.CPURaw} {
		m, _ := cat.Lookup(n)
		md = append(md, m)
	}
	jr := &JobResult{Measurements: ms, Metadata: md, Results: map[string]float64{measure.RPS: 4000, measure.CPU: 50, measure.CPURaw: 100}}
	Derive(map[string]*JobResult{"load": jr})
	// (50 % + 100 % of a core) over 4,000 req/s: 375 µs.
	if got := jr.Results[measure.CPUPerRequest]; got < 374.9 || got > 375.1 {
		t.Errorf("CPU per request %v µs, want 375 (both agents' CPU over both agents' requests)", got)
	}
	shown := map[string]string{}
	for _, r := range Rows(jr) {
		shown[r[0]] = r[1]
	}
	if got := shown[measure.RPS]; got != "4,000" {
		t.Errorf("RPS shown %q, want the sum alone", got)
	}
	if got := shown[measure.CPU]; !strings.HasSuffix(got, "max, mean 50") {
		t.Errorf("CPU shown %q, want the highest sample with the higher agent's mean (50)", got)
	}
}

// TestSampledOverIterations: over iterations a sampled max is the mean of each iteration's max,
// and says so, without the one iteration's sample mean beside it (which can exceed it).
func TestSampledOverIterations(t *testing.T) {
	at := time.Unix(0, 0)
	var tl []api.Measurement
	for _, c := range []float64{40, 44, 45} { // the last iteration's samples: mean 43
		tl = append(tl, api.Measurement{Name: measure.CPU, Timestamp: at, Value: c})
	}
	md, _ := measure.Default().Lookup(measure.CPU)
	jr := &JobResult{Measurements: [][]api.Measurement{tl}, Metadata: []api.Metadata{md},
		Results: map[string]float64{measure.CPU: 36}, Spread: map[string]Spread{measure.CPU: {N: 3, Mean: 36, CV: 20.2}}}
	shown := ""
	for _, r := range Rows(jr) {
		if r[0] == measure.CPU {
			shown = r[1]
		}
	}
	if want := "36 ± 20.2%, mean of 3 iterations' max"; shown != want {
		t.Errorf("CPU shown %q, want %q", shown, want)
	}
}
