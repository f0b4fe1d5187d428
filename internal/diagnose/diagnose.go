// Package diagnose reads a finished run's results and gives one verdict on what limited it, with
// the figures it rests on: failed requests (error-bound), answers the application says it did not
// serve (unserved: its own count of the requests it handled well below the load's), a tail far above the median (freezes,
// from the latency timeline, or long-tail), other work on the machine (machine-busy), a rate cap
// the load reached (rate-capped), the run's jobs filling their shared
// machine together (machine-saturated), the load generator's CPU (client-bound), the server's
// CPU (server-bound), lock contention in the server (contention-bound), else, reading the server
// as a queue (queue.go: throughput, requests in flight and their response time, tied by Little's
// law), requests that wait (waiting: serialized or a load too light, which one run cannot tell
// apart), a load too light (underloaded) or, when a probe at twice the connections gains nothing,
// a server that handles requests one at a time (serialized), with the service time it implies.
//
// CPU figures are the means of each job's measured samples (warm-up samples left out) of
// benchmarks/cpu, in percent of the whole machine, said as cores too ("46 % of the machine (0.9
// of 2 cores)"). A job saturates when it uses Thresholds.Saturated of the cores it can use: a
// load generator at most its threads, any job at most the machine's cores less what the run's
// other jobs on the same machine use. docs/MEASUREMENTS.md explains the rules and thresholds.
package diagnose

import (
	"github.com/crankshaft/crankshaft/internal/results"
)

// Kinds of verdict, in the order they are decided.
const (
	ErrorBound = "error-bound"
	// Unserved: the application's own count of the requests it served is well below what the
	// load counted good: the load's answers were not its work.
	Unserved = "unserved"
	// Freezes: a load's p99 far above its median, carried by a few seconds of its timeline: the
	// server paused. LongTail: such a tail in every second (a slow path), or with no timeline to
	// tell which.
	Freezes          = "freezes"
	LongTail         = "long-tail"
	MachineBusy      = "machine-busy"
	RateCapped       = "rate-capped"
	MachineSaturated = "machine-saturated"
	ClientBound      = "client-bound"
	ServerBound      = "server-bound"
	ContentionBound  = "contention-bound"
	// Waiting: nothing saturated, and the requests in flight spend their time waiting, not
	// computed: serialized or a load too light, which one run cannot tell apart (Probe can).
	Waiting     = "waiting"
	Underloaded = "underloaded"
	// Serialized: RPS stayed flat when connections doubled while nothing was saturated (Probe).
	Serialized = "serialized"
)

// Thresholds tune the diagnosis. DefaultThresholds gives the documented values.
type Thresholds struct {
	// Saturated is the share of the CPU a job can use at which it counts as saturated.
	Saturated float64
	// ErrorShare is the share of failed requests (bad responses and socket errors) above which a
	// run is error-bound.
	ErrorShare float64
	// ServedShare is the share of the load's good requests/s the application must say it served
	// (runtime-counter/requests-per-second, when it reports it) for the load's answers to be its
	// work; below it the run is unserved.
	ServedShare float64
	// LockWaitMin (ms/s) and LockWaitPerCPU (ms waited per ms of the server's CPU time): lock
	// contention is high when runtime-counter/lock-contention reaches both.
	LockWaitMin    float64
	LockWaitPerCPU float64
	// MonitorContentions (/s): .NET monitor lock contention is high from this rate.
	MonitorContentions float64
	// MachineFull is the share of a machine's CPU (benchmarks/cpu/global) from which the run's
	// jobs that share it fill it together: a load and a server handing requests to each other
	// leave some of it idle even when neither can get more.
	MachineFull float64
	// OtherShare is the share of a machine's CPU used outside the run's jobs (other processes,
	// the kernel, the agent) from which the machine is reported busy.
	OtherShare float64
	// StealShare is the share of a machine's CPU time its hypervisor gave to other guests (steal)
	// from which machine-busy names it, and crank bisect and crank capacity measure again an
	// iteration or a failed step (steal counts in the CPU outside the run, OtherShare, already).
	StealShare float64
	// ManyConnections is the connection count from which underloaded stops suggesting more
	// connections; FewPipeline the pipeline depth below which it suggests a deeper pipeline.
	ManyConnections int
	FewPipeline     int
	// BusyThread is the CPU (% of a core) per load thread from which underloaded suggests threads.
	BusyThread float64
	// RateReached is the share of a load's rate cap its RPS must reach for the cap to be blamed.
	RateReached float64
	// ProbeGain is the RPS gain below which doubling the connections shows a serialized server;
	// ProbeRise the gain from which it shows a load too light (a server that waits on requests in
	// parallel does about twice the work). Between the two the probe cannot tell: a server that
	// handles a few at a time, or a probe that differs from its run by more than noise.
	ProbeGain float64
	ProbeRise float64
	// QueueMin is the requests in flight (Little's law, or a closed loop's connections x
	// pipeline) from which requests can wait behind each other; WaitShare the share of their
	// time in flight no CPU of the run spent on them (1 - cores busy / requests in flight) from
	// which they wait (waiting, not underloaded).
	QueueMin  float64
	WaitShare float64
	// TailRatio is how many times a load's p50 its p99 must reach, and TailMin (ms) the p99 it
	// must reach, for the tail to be the verdict (freezes or long-tail).
	TailRatio float64
	TailMin   float64
}

// DefaultThresholds returns the thresholds docs/MEASUREMENTS.md documents.
func DefaultThresholds() Thresholds {
	return Thresholds{
		Saturated:          0.9,
		ErrorShare:         0.01,
		ServedShare:        0.5,
		LockWaitMin:        50,
		LockWaitPerCPU:     0.5,
		MonitorContentions: 1000,
		MachineFull:        0.7,
		OtherShare:         0.2,
		StealShare:         0.05,
		ManyConnections:    256,
		FewPipeline:        16,
		BusyThread:         50,
		RateReached:        0.95,
		ProbeGain:          0.15,
		ProbeRise:          0.5,
		QueueMin:           2,
		WaitShare:          0.9,
		TailRatio:          100,
		TailMin:            10,
	}
}

// Diagnose returns the run's verdict first, then the findings beside it that do not contradict
// it. The verdict is the first that holds of: error-bound, unserved, freezes or long-tail
// (rate-capped said beside them; a long-tail, not a freeze, on a machine the run's own jobs filled
// comes after machine-saturated, beside it) and rate-capped (which do not rest on CPU figures: machine-busy is said beside
// them when the machine was busy too), machine-busy (one per busy machine), then what limited the
// run (limit). A run without a load job or without CPU samples gets only those that do not rest
// on CPU figures, when they apply. res is not modified.
func Diagnose(res *results.Result, th Thresholds) []results.Diagnostic {
	if res == nil {
		return nil
	}
	r := newRun(res, th)
	busy := machineBusy(r, th)
	if d, failed := errorBound(r, th); failed {
		return append([]results.Diagnostic{d}, busy...)
	}
	if d, ok := unserved(r, th); ok {
		return append([]results.Diagnostic{d}, busy...)
	}
	if d, paused := freezes(r, th); paused {
		tail := []results.Diagnostic{d}
		// A reached rate cap limits the throughput, not the tail: said beside, never instead.
		if c, capped := rateCapped(r, th); capped {
			tail = append(tail, c)
		}
		if len(busy) > 0 && d.Kind == LongTail {
			// A tail in every second, or one no timeline places, on a machine other work kept
			// busy is as much that work's (the jobs waiting for a CPU) as a slow path's: cannot
			// tell, the tail said beside (wrk on one connection to a server that answers at once,
			// beside a busy core: p99 170x its p50, the machine 98 % busy, 50 % of it other work,
			// in the busy conformance pass of 2026-11-30).
			return append(busy, tail...)
		}
		if s, full := machineSaturated(r, th); full && len(busy) == 0 && d.Kind == LongTail {
			// The run's own jobs filled the machine: connections starved of CPU wait behind the
			// others, and a tail with no pause to show for it (in most seconds, or no timeline) is
			// as much theirs as a slow path's. What limited the run is known; the tail is said
			// beside (wrk's p99 at 321x its p50 on the plaintext scenario, 2026-11-30).
			return append([]results.Diagnostic{s}, tail...)
		}
		return append(tail, busy...)
	}
	if d, capped := rateCapped(r, th); capped {
		return append([]results.Diagnostic{d}, busy...)
	}
	if len(busy) > 0 {
		return busy
	}
	if d, ok := limit(r, th); ok {
		return []results.Diagnostic{d}
	}
	return nil
}
