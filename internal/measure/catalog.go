// Package measure declares, once, every measurement the platform knows: its unit, how it is
// aggregated over one job's samples and reduced across a service's endpoints, and what it means.
// docs/MEASUREMENTS.md is the human-readable form of this table.
package measure

import (
	"maps"
	"slices"
	"strings"

	"github.com/crankshaft/crankshaft/internal/api"
)

// Names of the measurements, as crank names them where crank has them.
const (
	CPU       = "benchmarks/cpu"
	CPURaw    = "benchmarks/cpu/raw"
	CPUGlobal = "benchmarks/cpu/global"
	// CPUSteal is the machine's CPU time its hypervisor gave to other guests (/proc/stat's steal).
	CPUSteal = "benchmarks/cpu/steal"
	// CPUThread is the CPU of the job's busiest thread in each sample, in percent of one core.
	CPUThread     = "benchmarks/cpu/busiest-thread"
	WorkingSet    = "benchmarks/working-set"
	PrivateMemory = "benchmarks/private-memory"
	BuildTime     = "benchmarks/build-time"
	StartTime     = "benchmarks/start-time"
	// PublishedSize is a .NET job's published folder (crank's name and unit).
	PublishedSize = "benchmarks/published-size"
	RPS           = "http/rps/mean"
	RPSMax        = "http/rps/max"
	Requests      = "http/requests"
	BadResponses  = "http/requests/badresponses"
	Errors        = "http/requests/errors"
	LatencyMean   = "http/latency/mean"
	Latency50     = "http/latency/50"
	Latency75     = "http/latency/75"
	Latency90     = "http/latency/90"
	Latency95     = "http/latency/95"
	Latency99     = "http/latency/99"
	LatencyMax    = "http/latency/max"
	WrkRPS        = "wrk/rps/mean"
	Throughput    = "http/throughput"
	FirstRequest  = "http/firstrequest"
	BombardierRPS = "bombardier/rps/mean"

	// crank's wrk job reports each load value under a wrk/ name too.
	WrkRequests     = "wrk/requests"
	WrkLatencyMean  = "wrk/latency/mean"
	WrkLatencyMax   = "wrk/latency/max"
	WrkLatency50    = "wrk/latency/50"
	WrkLatency75    = "wrk/latency/75"
	WrkLatency90    = "wrk/latency/90"
	WrkLatency99    = "wrk/latency/99"
	WrkBadResponses = "wrk/errors/badresponses"
	WrkSocketErrors = "wrk/errors/socketerrors"
	WrkThroughput   = "wrk/throughput"
	GRPCRPS         = "grpc/rps/mean"
	BuiltinRPS      = "builtin/rps/mean"
	// BuiltinRPSPerSecond is the built-in generator's per-second timeline of completed requests.
	BuiltinRPSPerSecond = "builtin/requests-per-second"
	LockContention      = "runtime-counter/lock-contention"
	ExceptionCount      = "runtime-counter/exception-count"

	// A load on several generators (docs/DISTRIBUTED.md): how far apart their measured windows
	// began and ended, and the rate the whole was asked for.
	LoadStartSpread = "load/start-spread"
	LoadEndSpread   = "load/end-spread"
	LoadAskedRate   = "load/asked-rate"
	LoadStartLate   = "load/start-late"

	// BuiltinLatency50PerSecond and BuiltinLatency99PerSecond are the built-in generator's
	// per-second latency percentiles: latency over time (http/latency/* are the whole run's).
	BuiltinLatency50PerSecond = "builtin/latency-per-second/50"
	BuiltinLatency99PerSecond = "builtin/latency-per-second/99"

	MonitorLockContention = "runtime-counter/monitor-lock-contention-count"
	GCPause               = "runtime-counter/gc-pause"
	GCPauseP99            = "runtime-counter/gc-pause-p99"
	Goroutines            = "runtime-counter/goroutines"
	Threads               = "runtime-counter/threads"
	QueueLength           = "runtime-counter/queue-length"
	SchedLatencyP99       = "runtime-counter/sched-latency-p99"
	RequestsPerSecond     = "runtime-counter/requests-per-second"

	// Derived by results.Derive from the others.
	ErrorRate = "http/requests/error-rate"
	// LoadRateReached is a rate-limited load's requests/s over the rate it asked, in percent.
	LoadRateReached = "load/rate-reached"
	CPUPerRequest   = "benchmarks/cpu/per-request"
	DBQueries       = "runtime-counter/db-queries"

	// The figures of `make bench` (bench/, docs/PERFORMANCE.json): one job per row of its tables,
	// one iteration per bench run (the median of its rounds); the results are the medians over the runs.
	BenchCPUPerRequest = "bench/cpu-per-request"
	BenchRatio         = "bench/ratio"
	BenchKernelShare   = "bench/kernel-share"
)

// Aliases are the names crank's load jobs (wrk, bombardier, h2load) give values they also report
// under http/ names: the alias -> our name. Results carry both (crank's tools read either);
// tables show ours only. ToolAliases gives one tool's.
var Aliases = map[string]string{
	WrkRequests: Requests, WrkLatencyMean: LatencyMean, WrkLatencyMax: LatencyMax, WrkLatency50: Latency50,
	WrkLatency75: Latency75, WrkLatency90: Latency90, WrkLatency99: Latency99, WrkBadResponses: BadResponses,
	WrkSocketErrors: Errors, WrkThroughput: Throughput, WrkRPS: RPS, // wrk's Requests/sec is responses over its time
	BuiltinRPS: RPS,

	"bombardier/requests": Requests, "bombardier/badresponses": BadResponses, "bombardier/latency/mean": LatencyMean,
	"bombardier/latency/max": LatencyMax, "bombardier/latency/50": Latency50, "bombardier/latency/75": Latency75,
	"bombardier/latency/90": Latency90, "bombardier/latency/95": Latency95, "bombardier/latency/99": Latency99,
	"bombardier/rps/max": RPSMax, "bombardier/throughput": Throughput,

	"h2load/requests": Requests, "h2load/badresponses": BadResponses, "h2load/errors/socketerrors": Errors,
	"h2load/latency/mean": LatencyMean, "h2load/latency/max": LatencyMax, "h2load/rps/mean": RPS,
}

// Lookalikes are figures a tool reports under a name like one of ours that are not the same
// number: the figure -> ours and what makes it differ. Tables say so beside it (a run with
// bombardier showed http/rps/mean 36,043 beside bombardier/rps/mean 36,536, unexplained).
var Lookalikes = map[string]Lookalike{
	BombardierRPS: {Ours: RPS, Why: "bombardier's mean of its per-interval rates, failed requests counted; " + RPS + " is responses over the run's time"},
}

// Lookalike is one of Lookalikes: our figure it looks like, and why it differs.
type Lookalike struct{ Ours, Why string }

// ToolAliases are the aliases of one tool ("wrk", "bombardier", "h2load"): those under its prefix.
func ToolAliases(tool string) map[string]string {
	out := map[string]string{}
	for alias, ours := range Aliases {
		if strings.HasPrefix(alias, tool+"/") {
			out[alias] = ours
		}
	}
	return out
}

// aliasEntries are the catalog entries of the aliases: ours under the tool's name.
func aliasEntries(list []api.Metadata) []api.Metadata {
	byName := map[string]api.Metadata{}
	for _, m := range list {
		byName[m.Name] = m
	}
	var out []api.Metadata
	for _, tool := range []string{"bombardier", "h2load"} {
		aliases := ToolAliases(tool)
		for _, alias := range slices.Sorted(maps.Keys(aliases)) {
			m := byName[aliases[alias]]
			m.Source, m.Name = tool, alias
			m.ShortDescription = strings.Replace(m.ShortDescription, "(", "("+tool+", ", 1)
			if !strings.Contains(m.ShortDescription, "(") {
				m.ShortDescription += " (" + tool + ")"
			}
			m.LongDescription = aliases[alias] + " under crank's " + tool + " name"
			out = append(out, m)
		}
	}
	return out
}

// Units, spelled the same everywhere.
const (
	UnitPercent = "%"
	UnitMB      = "MB"
	UnitKB      = "KB"
	// UnitUs is microseconds, for CPU per request: a plaintext request costs about 1 µs of CPU,
	// which milliseconds would write 0.001.
	UnitUs       = "µs"
	UnitMs       = "ms"
	UnitRPS      = "req/s"
	UnitCount    = "count"
	UnitPerSec   = "/s"
	UnitMsPerSec = "ms/s"
	UnitMBPerSec = "MB/s"
	// UnitRatio is a figure over another of the same unit (bench/ratio: 0.5x costs half).
	UnitRatio = "x"
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

// higher and lower set an entry's direction: which way the figure gets better.
func higher(m api.Metadata) api.Metadata { m.Direction = api.DirectionHigher; return m }
func lower(m api.Metadata) api.Metadata  { m.Direction = api.DirectionLower; return m }

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
// tools, counters, the bench's): the order of docs/MEASUREMENTS.md.
func List() []api.Metadata {
	list := base()
	return append(list, aliasEntries(list)...)
}

func base() []api.Metadata {
	return []api.Metadata{
		lower(md("Host Process", CPU, api.OpMax, api.OpMax, "n0", UnitPercent, "Max CPU Usage (%)", "Highest CPU of the job's process tree over the run, in percent of the whole machine")),
		lower(md("Host Process", CPURaw, api.OpMax, api.OpMax, "n0", UnitPercent, "Max CPU Usage, raw (%)", "Highest CPU of the job's process tree, in percent of one core (can exceed 100)")),
		lower(md("Host Process", CPUGlobal, api.OpMax, api.OpMax, "n0", UnitPercent, "Max Global CPU Usage (%)", "Highest CPU of the whole machine over the run, in percent")),
		lower(md("Host Process", CPUSteal, api.OpAvg, api.OpMax, "n1", UnitPercent, "Mean CPU steal (%)", "Share of the whole machine's CPU time its hypervisor gave to other guests over the run (steal, in /proc/stat), in percent: on a virtual machine, time the run's jobs waited for a CPU they were not given")),
		md("Host Process", CPUThread, api.OpAvg, api.OpMax, "n0", UnitPercent, "Mean CPU of the busiest thread (%)", "CPU of the job's busiest thread in each sample (its own user and system time), in percent of one core, averaged over the run: near 100 % on a job with more cores, one thread (an event loop, a lock holder) limits what the job's cores can do"),
		lower(md("Host Process", WorkingSet, api.OpMax, api.OpMax, "n0", UnitMB, "Max Working Set (MB)", "Highest resident memory of the job's process tree")),
		lower(md("Host Process", PrivateMemory, api.OpMax, api.OpMax, "n0", UnitMB, "Max Private Memory (MB)", "Highest private (anonymous) memory of the job's process tree")),
		lower(md("Host Process", BuildTime, api.OpMax, api.OpMax, "n0", UnitMs, "Build Time (ms)", "Time the agent spent building the job (0 when a cached build was reused)")),
		lower(md("Host Process", PublishedSize, api.OpMax, api.OpMax, "n0", UnitKB, "Published Size (KB)", "Size of what `dotnet publish` wrote for a .NET job (its published folder), in KB (2^10 bytes)")),
		lower(md("Derived", CPUPerRequest, api.OpMax, api.OpMax, "n2", UnitUs, "CPU per request (µs)", "The job's mean CPU over its measured samples (benchmarks/cpu/raw, cores) divided by the run's requests per second: microseconds of CPU per request")),
		lower(md("Host Process", StartTime, api.OpMax, api.OpMax, "n0", UnitMs, "Start Time (ms)", "Time from process start to ready")),
		higher(md("Load", RPS, api.OpMax, api.OpSum, "n0", UnitRPS, "Requests/sec", "Requests per second over the measured duration")),
		higher(md("Load", RPSMax, api.OpMax, api.OpSum, "n0", UnitRPS, "Requests/sec (max)", "Highest requests per second over one of the tool's intervals (bombardier)")),
		md("Load", Requests, api.OpMax, api.OpSum, "n0", UnitCount, "Requests", "Responses received over the measured duration"),
		lower(md("Load", BadResponses, api.OpMax, api.OpSum, "n0", UnitCount, "Bad responses", "Responses with a non-2xx/3xx status")),
		lower(md("Load", Errors, api.OpMax, api.OpSum, "n0", UnitCount, "Socket errors", "Connect, read, write and timeout errors")),
		higher(md("Derived", LoadRateReached, api.OpMin, api.OpMin, "n1", UnitPercent, "Rate reached (%)", "Requests/sec done (http/rps/mean) over the rate asked (load/asked-rate), in percent: a load that reached less than 95 % of its rate is flagged, and its latency is that of the rate it did")),
		lower(md("Derived", ErrorRate, api.OpMax, api.OpMax, "n2", UnitPercent, "Error rate (%)", "Bad responses and socket errors over requests plus socket errors, in percent")),
		lower(md("Load", LatencyMean, api.OpMax, api.OpMax, "n2", UnitMs, "Mean latency (ms)", "Mean latency")),
		lower(md("Load", Latency50, api.OpMax, api.OpMax, "n2", UnitMs, "Latency 50th (ms)", "50th percentile latency")),
		lower(md("Load", Latency75, api.OpMax, api.OpMax, "n2", UnitMs, "Latency 75th (ms)", "75th percentile latency")),
		lower(md("Load", Latency90, api.OpMax, api.OpMax, "n2", UnitMs, "Latency 90th (ms)", "90th percentile latency")),
		lower(md("Load", Latency95, api.OpMax, api.OpMax, "n2", UnitMs, "Latency 95th (ms)", "95th percentile latency")),
		lower(md("Load", Latency99, api.OpMax, api.OpMax, "n2", UnitMs, "Latency 99th (ms)", "99th percentile latency")),
		lower(md("Load", LatencyMax, api.OpMax, api.OpMax, "n2", UnitMs, "Max latency (ms)", "Highest latency")),
		higher(md("Load", Throughput, api.OpMax, api.OpSum, "n2", UnitMBPerSec, "Read throughput (MB/s)", "Response bytes read per second over the measured duration (MiB/s), as crank's wrk job reports it")),
		lower(md("Load", FirstRequest, api.OpMax, api.OpMax, "n0", UnitMs, "First Request (ms)", "Time to first request in ms")),
		md("Load", LoadAskedRate, api.OpMax, api.OpSum, "n0", UnitRPS, "Requests/sec asked", "The rate the generators were asked for, in all (the sum of their shares)"),
		lower(md("Load", LoadStartSpread, api.OpMax, api.OpMax, "n2", UnitMs, "Window start spread (ms)", "Latest minus earliest start of the generators' measured windows, on the controller's clock")),
		lower(md("Load", LoadStartLate, api.OpMax, api.OpMax, "n2", UnitMs, "Window start lateness (ms)", "How long after the start the controller set a generator's measured window began, on the controller's clock (the whole: the latest)")),
		lower(md("Load", LoadEndSpread, api.OpMax, api.OpMax, "n2", UnitMs, "Window end spread (ms)", "Latest minus earliest end of the generators' measured windows, on the controller's clock")),
		higher(md("wrk", WrkRPS, api.OpMax, api.OpSum, "n0", UnitRPS, "Requests/sec (wrk)", "Requests per second as wrk reports it")),
		md("wrk", WrkRequests, api.OpMax, api.OpSum, "n0", UnitCount, "Requests (wrk)", "http/requests under crank's wrk name"),
		lower(md("wrk", WrkLatencyMean, api.OpMax, api.OpMax, "n2", UnitMs, "Mean latency (wrk, ms)", "http/latency/mean under crank's wrk name")),
		lower(md("wrk", WrkLatencyMax, api.OpMax, api.OpMax, "n2", UnitMs, "Max latency (wrk, ms)", "http/latency/max under crank's wrk name")),
		lower(md("wrk", WrkLatency50, api.OpMax, api.OpMax, "n2", UnitMs, "Latency 50th (wrk, ms)", "http/latency/50 under crank's wrk name")),
		lower(md("wrk", WrkLatency75, api.OpMax, api.OpMax, "n2", UnitMs, "Latency 75th (wrk, ms)", "http/latency/75 under crank's wrk name")),
		lower(md("wrk", WrkLatency90, api.OpMax, api.OpMax, "n2", UnitMs, "Latency 90th (wrk, ms)", "http/latency/90 under crank's wrk name")),
		lower(md("wrk", WrkLatency99, api.OpMax, api.OpMax, "n2", UnitMs, "Latency 99th (wrk, ms)", "http/latency/99 under crank's wrk name")),
		lower(md("wrk", WrkBadResponses, api.OpMax, api.OpSum, "n0", UnitCount, "Bad responses (wrk)", "http/requests/badresponses under crank's wrk name")),
		lower(md("wrk", WrkSocketErrors, api.OpMax, api.OpSum, "n0", UnitCount, "Socket errors (wrk)", "http/requests/errors under crank's wrk name")),
		higher(md("wrk", WrkThroughput, api.OpMax, api.OpSum, "n2", UnitMBPerSec, "Read throughput (wrk, MB/s)", "http/throughput under crank's wrk name")),
		higher(md("bombardier", BombardierRPS, api.OpMax, api.OpSum, "n0", UnitRPS, "Requests/sec (bombardier's per-interval mean)", "bombardier's own rps.mean: the mean of its per-interval rates, failed requests included; not http/rps/mean (responses over the run's time), from which it differs by a few percent")),
		higher(md("builtin", BuiltinRPS, api.OpMax, api.OpSum, "n0", UnitRPS, "Requests/sec (builtin)", "Requests per second as the built-in generator (crank load) reports it")),
		higher(md("builtin", BuiltinRPSPerSecond, api.OpAvg, api.OpSum, "n0", UnitRPS, "Requests/sec per second (builtin)", "Requests the built-in generator completed in each second: one sample per second of the run, the client-side view of the run dashboard's requests/sec")),
		lower(md("builtin", BuiltinLatency50PerSecond, api.OpMax, api.OpMax, "n2", UnitMs, "Latency 50th, worst second (builtin, ms)", "Median latency of the responses the built-in generator completed in each second: one sample per second of the run; the summary is the worst second (http/latency/50 is the whole run's)")),
		lower(md("builtin", BuiltinLatency99PerSecond, api.OpMax, api.OpMax, "n2", UnitMs, "Latency 99th, worst second (builtin, ms)", "99th percentile latency of the responses the built-in generator completed in each second: one sample per second of the run; the summary is the worst second (http/latency/99 is the whole run's)")),
		higher(md("ghz", GRPCRPS, api.OpMax, api.OpSum, "n0", UnitRPS, "Requests/sec (gRPC)", "gRPC calls per second as ghz reports it, calls ending in an error status included")),
		higher(md("Counters", RequestsPerSecond, api.OpAvg, api.OpSum, "n0", UnitRPS, "Requests/sec (app)", "Requests the application answered per second, from its own counter (app_requests_total): one sample per sampling interval, the server-side view of the load")),
		lower(md("Counters", LockContention, api.OpAvg, api.OpMax, "n2", UnitMsPerSec, "Lock contention (ms/s)", "Time goroutines spent blocked on sync.Mutex, sync.RWMutex and the Go runtime's internal locks, in ms per second (100 ms/s: on average a tenth of a goroutine waiting)")),
		lower(md("Counters", ExceptionCount, api.OpAvg, api.OpSum, "n2", UnitPerSec, "Exceptions (/s)", "Exceptions thrown (.NET) or recovered panics and failed requests (Go apps) per second")),
		lower(md("Counters", MonitorLockContention, api.OpAvg, api.OpMax, "n2", UnitPerSec, "Monitor lock contentions (/s)", "Times a .NET thread found a Monitor lock taken, per second")),
		lower(md("Counters", GCPause, api.OpAvg, api.OpMax, "n2", UnitMsPerSec, "GC pause (ms/s)", "Time the program was paused by its garbage collector, in ms per second")),
		lower(md("Counters", GCPauseP99, api.OpMax, api.OpMax, "n3", UnitMs, "GC pause p99 (ms)", "99th percentile of GC pauses in one sampling interval, the worst interval")),
		md("Counters", Goroutines, api.OpMax, api.OpMax, "n0", UnitCount, "Max goroutines", "Highest number of goroutines"),
		md("Counters", Threads, api.OpMax, api.OpMax, "n0", UnitCount, "Max threads", "Highest number of OS threads (Go) or thread-pool threads (.NET)"),
		lower(md("Counters", QueueLength, api.OpMax, api.OpMax, "n0", UnitCount, "Max queue length", "Highest number of work items waiting for a dispatch worker (Go apps) or the .NET thread pool")),
		md("Counters", DBQueries, api.OpAvg, api.OpSum, "n0", UnitPerSec, "Database queries (/s)", "Queries the app sent to its database, per second (apps that use one)"),
		lower(md("Counters", SchedLatencyP99, api.OpMax, api.OpMax, "n3", UnitMs, "Scheduling latency p99 (ms)", "99th percentile of the time goroutines waited to run after becoming runnable in one sampling interval, the worst interval")),
		lower(md("bench", BenchCPUPerRequest, api.OpMedian, api.OpMax, "n2", UnitUs, "CPU per request (bench, µs)", "make bench: CPU time (user + system, from /proc ticks) of a row's measured side (the server, or the client) over the responses counted in one round, in µs; an iteration is a bench run (servers started afresh), the median of its rounds; the result is the median over the rounds of all runs")),
		lower(md("bench", BenchRatio, api.OpMedian, api.OpMax, "n3", UnitRatio, "Ratio to the reference (bench)", "make bench: a row's bench/cpu-per-request over its reference's in the same round (crank load over wrk, an app over nginx); an iteration is a bench run, the median of its rounds' ratios; the result is the median of the rounds' ratios of all runs, the figure the bench's targets are judged on")),
		md("bench", BenchKernelShare, api.OpMedian, api.OpMax, "n0", UnitPercent, "Kernel share (bench, %)", "make bench: the share of a row's measured side's CPU (bench/cpu-per-request) that was system time, stime / (utime + stime) from /proc ticks, in percent; an iteration is a bench run, the median of its rounds; the result is the median over the rounds of all runs. Neither better nor worse: it says where the cost is (the kernel's send and receive paths, or the program's own code)"),
	}
}
