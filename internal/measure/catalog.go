// Package measure declares, once, every measurement the platform knows: its unit, how it is
// aggregated over one job's samples and reduced across a service's endpoints, and what it means.
// docs/MEASUREMENTS.md is the human-readable form of this table.
package measure

import "github.com/crankshaft/crankshaft/internal/api"

// Names of the measurements, as crank names them where crank has them.
const (
	CPU            = "benchmarks/cpu"
	CPURaw         = "benchmarks/cpu/raw"
	CPUGlobal      = "benchmarks/cpu/global"
	WorkingSet     = "benchmarks/working-set"
	PrivateMemory  = "benchmarks/private-memory"
	BuildTime      = "benchmarks/build-time"
	StartTime      = "benchmarks/start-time"
	RPS            = "http/rps/mean"
	Requests       = "http/requests"
	BadResponses   = "http/requests/badresponses"
	Errors         = "http/requests/errors"
	LatencyMean    = "http/latency/mean"
	Latency50      = "http/latency/50"
	Latency75      = "http/latency/75"
	Latency90      = "http/latency/90"
	Latency99      = "http/latency/99"
	LatencyMax     = "http/latency/max"
	WrkRPS         = "wrk/rps/mean"
	BombardierRPS  = "bombardier/rps/mean"
	GRPCRPS        = "grpc/rps/mean"
	BuiltinRPS     = "builtin/rps/mean"
	LockContention = "runtime-counter/lock-contention"
	ExceptionCount = "runtime-counter/exception-count"

	MonitorLockContention = "runtime-counter/monitor-lock-contention-count"
	GCPause               = "runtime-counter/gc-pause"
	GCPauseP99            = "runtime-counter/gc-pause-p99"
	Goroutines            = "runtime-counter/goroutines"
	Threads               = "runtime-counter/threads"
	QueueLength           = "runtime-counter/queue-length"
	SchedLatencyP99       = "runtime-counter/sched-latency-p99"
	DBQueries             = "runtime-counter/db-queries"
)

// Units, spelled the same everywhere.
const (
	UnitPercent  = "%"
	UnitMB       = "MB"
	UnitMs       = "ms"
	UnitRPS      = "req/s"
	UnitCount    = "count"
	UnitPerSec   = "/s"
	UnitMsPerSec = "ms/s"
)

// Catalog maps measurement names to their metadata. Build one with Default.
type Catalog map[string]api.Metadata

// Lookup returns the metadata for name and whether it is known.
func (c Catalog) Lookup(name string) (api.Metadata, bool) {
	m, ok := c[name]
	return m, ok
}

func md(source, name string, agg, red api.Operation, format, unit, short, long string) api.Metadata {
	return api.Metadata{Source: source, Name: name, Aggregate: agg, Reduce: red, Format: format,
		Unit: unit, ShortDescription: short, LongDescription: long}
}

// Default returns the shipped catalog. Each call returns a fresh map the caller may extend.
func Default() Catalog {
	list := List()
	c := make(Catalog, len(list))
	for _, m := range list {
		c[m.Name] = m
	}
	return c
}

// List returns the shipped catalog's entries in the order they are declared (host process, load,
// tools, counters): the order of docs/MEASUREMENTS.md.
func List() []api.Metadata {
	return []api.Metadata{
		md("Host Process", CPU, api.OpMax, api.OpMax, "n0", UnitPercent, "Max CPU Usage (%)", "Highest CPU of the job's process tree over the run, in percent of the whole machine"),
		md("Host Process", CPURaw, api.OpMax, api.OpMax, "n0", UnitPercent, "Max CPU Usage, raw (%)", "Highest CPU of the job's process tree, in percent of one core (can exceed 100)"),
		md("Host Process", CPUGlobal, api.OpMax, api.OpMax, "n0", UnitPercent, "Max Global CPU Usage (%)", "Highest CPU of the whole machine over the run, in percent"),
		md("Host Process", WorkingSet, api.OpMax, api.OpMax, "n0", UnitMB, "Max Working Set (MB)", "Highest resident memory of the job's process tree"),
		md("Host Process", PrivateMemory, api.OpMax, api.OpMax, "n0", UnitMB, "Max Private Memory (MB)", "Highest private (anonymous) memory of the job's process tree"),
		md("Host Process", BuildTime, api.OpMax, api.OpMax, "n0", UnitMs, "Build Time (ms)", "Time the agent spent building the job (0 when a cached build was reused)"),
		md("Host Process", StartTime, api.OpMax, api.OpMax, "n0", UnitMs, "Start Time (ms)", "Time from process start to ready"),
		md("Load", RPS, api.OpMax, api.OpSum, "n0", UnitRPS, "Requests/sec", "Requests per second over the measured duration"),
		md("Load", Requests, api.OpMax, api.OpSum, "n0", UnitCount, "Requests", "Responses received over the measured duration"),
		md("Load", BadResponses, api.OpMax, api.OpSum, "n0", UnitCount, "Bad responses", "Responses with a non-2xx/3xx status"),
		md("Load", Errors, api.OpMax, api.OpSum, "n0", UnitCount, "Socket errors", "Connect, read, write and timeout errors"),
		md("Load", LatencyMean, api.OpMax, api.OpMax, "n2", UnitMs, "Mean latency (ms)", "Mean latency"),
		md("Load", Latency50, api.OpMax, api.OpMax, "n2", UnitMs, "Latency 50th (ms)", "50th percentile latency"),
		md("Load", Latency75, api.OpMax, api.OpMax, "n2", UnitMs, "Latency 75th (ms)", "75th percentile latency"),
		md("Load", Latency90, api.OpMax, api.OpMax, "n2", UnitMs, "Latency 90th (ms)", "90th percentile latency"),
		md("Load", Latency99, api.OpMax, api.OpMax, "n2", UnitMs, "Latency 99th (ms)", "99th percentile latency"),
		md("Load", LatencyMax, api.OpMax, api.OpMax, "n2", UnitMs, "Max latency (ms)", "Highest latency"),
		md("wrk", WrkRPS, api.OpMax, api.OpSum, "n0", UnitRPS, "Requests/sec (wrk)", "Requests per second as wrk reports it"),
		md("bombardier", BombardierRPS, api.OpMax, api.OpSum, "n0", UnitRPS, "Requests/sec (bombardier)", "Requests per second as bombardier reports it"),
		md("builtin", BuiltinRPS, api.OpMax, api.OpSum, "n0", UnitRPS, "Requests/sec (builtin)", "Requests per second as the built-in generator (crank load) reports it"),
		md("ghz", GRPCRPS, api.OpMax, api.OpSum, "n0", UnitRPS, "Requests/sec (gRPC)", "gRPC calls per second as ghz reports it, calls ending in an error status included"),
		md("Counters", LockContention, api.OpAvg, api.OpMax, "n2", UnitMsPerSec, "Lock contention (ms/s)", "Time goroutines spent blocked on sync.Mutex, sync.RWMutex and the Go runtime's internal locks, in ms per second (100 ms/s: on average a tenth of a goroutine waiting)"),
		md("Counters", ExceptionCount, api.OpAvg, api.OpSum, "n2", UnitPerSec, "Exceptions (/s)", "Exceptions thrown (.NET) or recovered panics and failed requests (Go apps) per second"),
		md("Counters", MonitorLockContention, api.OpAvg, api.OpMax, "n2", UnitPerSec, "Monitor lock contentions (/s)", "Times a .NET thread found a Monitor lock taken, per second"),
		md("Counters", GCPause, api.OpAvg, api.OpMax, "n2", UnitMsPerSec, "GC pause (ms/s)", "Time the program was paused by its garbage collector, in ms per second"),
		md("Counters", GCPauseP99, api.OpMax, api.OpMax, "n3", UnitMs, "GC pause p99 (ms)", "99th percentile of GC pauses in one sampling interval, the worst interval"),
		md("Counters", Goroutines, api.OpMax, api.OpMax, "n0", UnitCount, "Max goroutines", "Highest number of goroutines"),
		md("Counters", Threads, api.OpMax, api.OpMax, "n0", UnitCount, "Max threads", "Highest number of OS threads (Go) or thread-pool threads (.NET)"),
		md("Counters", QueueLength, api.OpMax, api.OpMax, "n0", UnitCount, "Max queue length", "Highest number of work items waiting for a dispatch worker (Go apps) or the .NET thread pool"),
		md("Counters", DBQueries, api.OpAvg, api.OpSum, "n0", UnitPerSec, "Database queries (/s)", "Queries the app sent to its database, per second (apps that use one)"),
		md("Counters", SchedLatencyP99, api.OpMax, api.OpMax, "n3", UnitMs, "Scheduling latency p99 (ms)", "99th percentile of the time goroutines waited to run after becoming runnable in one sampling interval, the worst interval"),
	}
}
