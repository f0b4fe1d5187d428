package diagnose

import (
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/measure"
)

// threadSamples is measured samples of a job's busiest thread (% of one core).
func threadSamples(v ...float64) []api.Measurement {
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	out := make([]api.Measurement, len(v))
	for i, x := range v {
		out[i] = api.Measurement{Name: measure.CPUThread, Timestamp: at.Add(time.Duration(i) * time.Second), Value: x}
	}
	return out
}

// A server of 8 cores that uses one, on one thread busy all along: serialized on that thread,
// from one run and no probe. The same server with its work spread over threads is not.
func TestSerializedOnOneThread(t *testing.T) {
	got := check(t, map[string]fakeJob{
		"application": {raw: []float64{101, 99}, global: 14, cores: 8, host: "srv", extra: threadSamples(97, 99)},
		"load":        {raw: []float64{60}, global: 9, cores: 8, host: "cli", vars: wrkVars(4, 256, 1), results: wrk(0, 0)},
	}, want{Serialized, []string{"application: one of its threads was busy 98 % of a core", "while the server used 12 % of the machine (1.0 of 8 cores",
		"serialized on that thread"}})
	if f := figure(t, got[0], "application", measure.CPUThread, "mean"); f.Value != 98 || f.Unit != "%" {
		t.Errorf("busiest thread figure %+v, want the mean of its samples, 98 %%", f)
	}
	if got := Diagnose(runOf(map[string]fakeJob{
		"application": {raw: []float64{101, 99}, global: 14, cores: 8, host: "srv", extra: threadSamples(40, 45)},
		"load":        {raw: []float64{60}, global: 9, cores: 8, host: "cli", vars: wrkVars(4, 256, 1), results: wrk(0, 0)},
	}), DefaultThresholds()); got[0].Kind == Serialized {
		t.Errorf("work spread over threads (the busiest at 42 %%) read serialized:\n%s", show(got))
	}
	// A figure no thread can give (an agent's answer is not trusted) is not judged on.
	if got := Diagnose(runOf(map[string]fakeJob{
		"application": {raw: []float64{101, 99}, global: 14, cores: 8, host: "srv", extra: threadSamples(900, 900)},
		"load":        {raw: []float64{60}, global: 9, cores: 8, host: "cli", vars: wrkVars(4, 256, 1), results: wrk(0, 0)},
	}), DefaultThresholds()); got[0].Kind == Serialized {
		t.Errorf("a busiest thread of 900 %% of a core was judged on:\n%s", show(got))
	}
}

// A busy thread is not the limit when the server has no idle core to give another thread (one
// core, or a machine the run's jobs fill): the rules before it stand.
func TestBusyThreadWithoutRoom(t *testing.T) {
	check(t, map[string]fakeJob{
		"application": {raw: []float64{96}, global: 97, cores: 1, host: "srv", extra: threadSamples(96)},
		"load":        {raw: []float64{60}, global: 9, cores: 8, host: "cli", vars: wrkVars(4, 256, 1), results: wrk(0, 0)},
	}, want{ServerBound, nil})
	check(t, map[string]fakeJob{
		"application": {raw: []float64{100}, global: 85, cores: 2, host: "box", extra: threadSamples(97)},
		"load":        {raw: []float64{65}, global: 85, cores: 2, host: "box", vars: wrkVars(2, 32, 1), results: wrk(0, 0)},
	}, want{MachineSaturated, nil})
}

// A load generator whose threads are not given (bombardier's goroutines, a script) but one of
// whose threads is saturated limits the run: client-bound, on the measured thread.
func TestClientBoundOnItsBusiestThread(t *testing.T) {
	got := check(t, map[string]fakeJob{
		"application": {raw: []float64{150}, global: 20, cores: 8, host: "srv", extra: threadSamples(30)},
		"load":        {raw: []float64{100}, global: 13, cores: 8, host: "cli", results: wrk(0, 0), extra: threadSamples(96, 98)},
	}, want{ClientBound, []string{"load: one of the load generator's threads was busy 97 % of a core", "that thread limits the run"}})
	figure(t, got[0], "load", measure.CPUThread, "mean")
}
