package diagnose

import (
	"strings"
	"testing"

	"github.com/crankshaft/crankshaft/internal/measure"
)

// serialWorker is issue 44's first wrong case in figures: a server passing every request to one
// worker that sleeps 400 µs, 2,129 req/s on 64 connections at a few % of a core, on the 2-core
// machine it shares with the load, with other work taking outside of the run.
func serialWorker(conns int, rps, global float64) map[string]fakeJob {
	res := wrk(0, 0)
	res[measure.RPS] = rps
	return map[string]fakeJob{
		"application": {raw: []float64{4}, global: global, cores: 2, host: "box"},
		"load":        {raw: []float64{6}, global: global, cores: 2, host: "box", vars: wrkVars(1, conns, 1), results: res},
	}
}

// TestWaitingNotUnderloaded: 64 requests in flight that each took 30 ms while the run's CPU spent
// 0.1 of a core are waiting: not "the load is too light; raise connections" (what main said with
// the machine a little busy), but "cannot tell" with the service time 1/X implies and what tells.
func TestWaitingNotUnderloaded(t *testing.T) {
	got := check(t, serialWorker(64, 2129, 22), want{Waiting, []string{
		"requests wait: 64 requests in flight (connections x pipeline, all in flight in a closed loop) took 30.1 ms each " +
			"(Little's law: 64 in flight / 2,129 requests/s), 100 % of that time on no CPU of the run",
		"either the server handles them one at a time, each in about 470 µs (1/X), and more load will not help (serialized)",
		"This run cannot tell which: a probe at twice the connections tells (requests/s flat: serialized; up: too light), " +
			"on a quiet machine (other work took 17 % of application and load's)",
	}})
	if strings.Contains(got[0].Message, "the load is too light;") {
		t.Errorf("a confident 'load too light': %s", got[0].Message)
	}
	if f := figure(t, got[0], "", "service time if one at a time"); f.Value != 469.7 || f.Unit != "µs" {
		t.Errorf("service time %+v, want 469.7 µs", f)
	}
	if f := figure(t, got[0], "", "requests in flight"); f.Value != 64 {
		t.Errorf("in flight %+v, want 64", f)
	}
}

// TestSerializedOnALittleBusyMachine: the same server's probe at 128 connections, -1 % with the
// machine a quarter busy but 70 % idle, is serialized with its service time (main: "the probe
// concludes nothing", the verdict "underloaded: raise connections").
func TestSerializedOnALittleBusyMachine(t *testing.T) {
	th := DefaultThresholds()
	base := runOf(serialWorker(64, 2129, 22))
	got := Probe(Diagnose(base, th), base, th, runOf(serialWorker(128, 2108, 30)))
	if got[0].Kind != Serialized || !strings.Contains(got[0].Message, "64 -> 128 connections: 2,129 -> 2,108 requests/s, -1 %") ||
		!strings.Contains(got[0].Message, "each in about 470 µs if one at a time (1/X at 2,129 requests/s, the most") {
		t.Errorf("got %s", show(got))
	}
}

// TestWaitingAtTheKnee: the capacity knee of a server holding one mutex 1 ms, as crank capacity
// diagnoses it (the rate left out): 950 req/s whose mean latency is 25 ms are 24 requests queued,
// each served in about 1 ms, not "underloaded" (which capacity words as "tail-latency: the server
// kept up with the rate"). A light open loop (0.15 ms a request) stays underloaded.
func TestWaitingAtTheKnee(t *testing.T) {
	knee := func(rps, mean float64) map[string]fakeJob {
		res := wrk(0, 0)
		res[measure.RPS], res[measure.LatencyMean] = rps, mean
		return map[string]fakeJob{
			"application": {raw: []float64{3}, global: 8, cores: 2, host: "box"},
			"load":        {raw: []float64{5}, global: 8, cores: 2, host: "box", vars: map[string]any{"connections": 64}, results: res},
		}
	}
	got := check(t, knee(950, 25), want{Waiting, []string{
		"requests wait: 24 requests in flight (Little's law: 950 requests/s x 25.0 ms) took 25.0 ms each (http/latency/mean, measured)",
		"each in about 1,053 µs (1/X)"}})
	figure(t, got[0], "", measure.LatencyMean)
	check(t, knee(1000, 0.15), want{Underloaded, nil})
}
