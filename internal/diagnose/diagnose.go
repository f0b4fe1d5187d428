// Package diagnose reads a finished run's results and says what limited it: the load generator's
// CPU (client-bound), the server's CPU (server-bound), lock contention in the server
// (contention-bound), a load too light to saturate anything (underloaded), failed requests
// (error-bound), or other work on the machine (machine-busy).
//
// CPU figures are the means of each job's measured samples (warm-up samples left out) of
// benchmarks/cpu/raw, in percent of one core. A job saturates when it uses Thresholds.Saturated
// of the CPU it can use: a load generator at most its threads' cores, any job at most the
// machine's cores minus what the run's other jobs on the same machine use. docs/MEASUREMENTS.md
// explains the rules and thresholds.
package diagnose

import (
	"github.com/crankshaft/crankshaft/internal/results"
)

// Kinds of diagnostic.
const (
	ClientBound     = "client-bound"
	ServerBound     = "server-bound"
	ContentionBound = "contention-bound"
	Underloaded     = "underloaded"
	ErrorBound      = "error-bound"
	MachineBusy     = "machine-busy"
	// Serialized: RPS stayed flat when connections doubled while nothing was saturated (Probe).
	Serialized = "serialized"
	// Unreliable: nothing saturated on a busy machine; no verdict on what limited the run.
	Unreliable = "unreliable"
)

// Thresholds tune the diagnosis. DefaultThresholds gives the documented values.
type Thresholds struct {
	// Saturated is the share of the CPU a job can use at which it counts as saturated.
	Saturated float64
	// ErrorShare is the share of failed requests (bad responses and socket errors) above which a
	// run is error-bound.
	ErrorShare float64
	// LockWaitMin (ms/s) and LockWaitPerCPU (ms waited per ms of the server's CPU time): lock
	// contention is high when runtime-counter/lock-contention reaches both.
	LockWaitMin    float64
	LockWaitPerCPU float64
	// MonitorContentions (/s): .NET monitor lock contention is high from this rate.
	MonitorContentions float64
	// OtherShare is the share of a machine's CPU used outside the run's jobs (other processes,
	// the kernel, the agent) from which the machine is reported busy.
	OtherShare float64
	// ManyConnections is the connection count from which underloaded stops suggesting more
	// connections; FewPipeline the pipeline depth below which it suggests a deeper pipeline.
	ManyConnections int
	FewPipeline     int
	// BusyThread is the CPU (% of a core) per load thread from which underloaded suggests threads.
	BusyThread float64
	// RateReached is the share of a load's rate cap its RPS must reach for the cap to be blamed.
	RateReached float64
	// ProbeGain is the RPS gain below which doubling the connections shows a serialized server.
	ProbeGain float64
}

// DefaultThresholds returns the thresholds docs/MEASUREMENTS.md documents.
func DefaultThresholds() Thresholds {
	return Thresholds{
		Saturated:          0.9,
		ErrorShare:         0.01,
		LockWaitMin:        50,
		LockWaitPerCPU:     0.5,
		MonitorContentions: 1000,
		OtherShare:         0.25,
		ManyConnections:    256,
		FewPipeline:        16,
		BusyThread:         50,
		RateReached:        0.95,
		ProbeGain:          0.15,
	}
}

// Diagnose returns the run's diagnostics: machine-busy first (it makes every other verdict
// unreliable), then error-bound, then what limited the run (one or more of client-bound and
// server-bound, else contention-bound, else underloaded, or unreliable on a busy machine). A run
// without a load job or without CPU samples gets only machine-busy and error-bound, when they
// apply. res is not modified.
func Diagnose(res *results.Result, th Thresholds) []results.Diagnostic {
	if res == nil {
		return nil
	}
	r := newRun(res, th)
	busy := machineBusy(r, th)
	out := append([]results.Diagnostic{}, busy...)
	out = append(out, errorBound(r, th)...)
	out = append(out, bottleneck(r, th, len(busy) > 0)...)
	return out
}
