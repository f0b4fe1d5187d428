package e2e

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/diagnose"
	"github.com/crankshaft/crankshaft/internal/measure"
	"github.com/crankshaft/crankshaft/internal/results"
)

// The ten cases of issue 24 (3), each on real processes of this machine, 3 measured seconds
// after 1 of warm-up:
//
//	go test ./internal/e2e -run TestVerdict -v

// rests fails unless the verdict rests on the named figure of the service.
func rests(t *testing.T, d results.Diagnostic, service, name string) results.Figure {
	t.Helper()
	for _, f := range d.Figures {
		if f.Service == service && f.Name == name {
			return f
		}
	}
	t.Errorf("%s rests on no %s %s: %v", d.Kind, service, name, d.Figures)
	return results.Figure{}
}

// (a) A server that spins 2 ms of CPU per request takes the machine: server-bound.
func TestVerdictServerCPUBound(t *testing.T) {
	v := runVerdict(t, 0, diagArgs(t, "spin", "2ms", false, "--load.variables.connections", "32")...)
	if v.want(t, diagnose.ServerBound, false) {
		rests(t, v.verdict, "application", measure.CPU)
	}
}

// (b) wrk with one thread spending about half a millisecond of Lua per request: client-bound.
func TestVerdictLoadCPUBound(t *testing.T) {
	script := filepath.Join(testEnv.root, "internal/e2e/testdata/heavylua/heavy.lua")
	v := runVerdict(t, 0, diagArgs(t, "spin", "0s", false, "--load.variables.script", script,
		"--load.variables.connections", "8", "--load.variables.threads", "1")...)
	if v.want(t, diagnose.ClientBound, false) {
		rests(t, v.verdict, "load", measure.CPU)
	}
}

// (c) The shipped plaintext scenario: the app and wrk fill the 2 cores together, which is neither
// serialized nor underloaded, and no probe runs.
func TestVerdictMachineSaturated(t *testing.T) {
	v := runVerdict(t, 0, plaintextArgs(t)...)
	if v.want(t, diagnose.MachineSaturated, false) {
		rests(t, v.verdict, "application and load", measure.CPUGlobal)
	}
}

// (d) Another process takes a quarter of the machine (half a core of two) beside a light run.
func TestVerdictMachineBusy(t *testing.T) {
	burner(t, 50, 90*time.Second)
	v := runVerdict(t, 0, diagArgs(t, "stall", "1ms", false, "--load.variables.connections", "16")...)
	if v.outside < 0.18 {
		t.Errorf("the burner took %.0f %% of the machine, want a quarter", 100*v.outside)
	}
	v.want(t, diagnose.MachineBusy, false)
	rests(t, v.verdict, "", "outside the run")
}

// (e) Every request sleeps 1 ms holding one mutex: contention-bound, on the server's own lock
// counter.
func TestVerdictLockContention(t *testing.T) {
	v := runVerdict(t, 0, diagArgs(t, "mutex", "1ms", true, "--load.variables.connections", "16")...)
	if v.want(t, diagnose.ContentionBound, false) {
		rests(t, v.verdict, "application", measure.LockContention)
	}
}

// (f) One goroutine serves every request behind a channel, no mutex: the lock counter stays low,
// nothing is saturated, and the probe at twice the connections shows the RPS flat: serialized.
func TestVerdictSerializedWithoutMutex(t *testing.T) {
	v := runVerdict(t, 0, diagArgs(t, "worker", "1ms", true, "--load.variables.connections", "16")...)
	if v.want(t, diagnose.Serialized, true) {
		mustContain(t, "the verdict", v.verdict.Message, "16 -> 32 connections")
		rests(t, v.verdict, "application", measure.LockContention)
	}
}

// (g) bombardier capped at 1,000 requests/s against a server that stalls 50 ms per request
// reaches about 32/0.05 = 640/s: the cap is not blamed; the probe finds more connections help.
func TestVerdictRateNotReached(t *testing.T) {
	v := runVerdict(t, 0, diagArgs(t, "stall", "50ms", false, "--load.job", "bombardier", "--load.variables.rate", "1000",
		"--load.variables.connections", "32")...)
	if v.want(t, diagnose.Underloaded, true) {
		mustContain(t, "the verdict", v.verdict.Message, "was not reached", "raise connections (now 32)",
			"checked by a short probe run: 32 -> 64 connections")
		rests(t, v.verdict, "load", "variables/rate")
	}
}

// (h) A server answering 500 to everything: error-bound, whatever the machine did, no probe.
func TestVerdictErrors(t *testing.T) {
	v := runVerdict(t, 1, diagArgs(t, "fail", "0s", false, "--load.variables.connections", "8")...)
	if v.verdict.Kind != diagnose.ErrorBound || v.probed {
		t.Errorf("verdict %s (probe ran: %v), want error-bound without a probe", v.verdict.Kind, v.probed)
	}
	if f := rests(t, v.verdict, "", measure.BadResponses); f.Value <= 0 {
		t.Errorf("bad responses %v", f.Value)
	}
}

// (i) One connection without pipelining, set by a top-level --variable: a light load the probe
// checks at 2 connections (not 1: the top-level variable is doubled too).
func TestVerdictLightLoad(t *testing.T) {
	v := runVerdict(t, 0, plaintextArgs(t, "--variable", "connections=1", "--variable", "pipeline=1")...)
	if v.want(t, diagnose.Underloaded, true) {
		mustContain(t, "the verdict", v.verdict.Message, "checked by a short probe run: 1 -> 2 connections")
	}
}

// (j) The built-in generator capped at 1,000 requests/s on 32 connections against a server
// sleeping 5 ms (room for 6,400/s) reaches its cap: rate-capped, and no probe (twice the
// connections keep the rate).
func TestVerdictRateCapReached(t *testing.T) {
	v := runVerdict(t, 0, diagArgs(t, "stall", "5ms", false, "--load.job", "builtin", "--load.variables.rate", "1000",
		"--load.variables.connections", "32")...)
	if v.want(t, diagnose.RateCapped, false) {
		if f := rests(t, v.verdict, "load", measure.RPS); f.Value < 950 || f.Value > 1050 {
			t.Errorf("RPS %v, want about 1,000", f.Value)
		}
	}
}
