package measure

import "github.com/crankshaft/crankshaft/internal/api"

// The ways a counter spec reads its metric (api.CounterSpec.Read).
const (
	ReadRate     = "rate"     // a counter's increase per second (a summary's or histogram's sum)
	ReadGauge    = "gauge"    // the value as scraped
	ReadQuantile = "quantile" // of a summary, or of a histogram over one interval's observations
)

// DefaultCounters returns the shipped Prometheus metric -> measurement mappings, for Go apps
// (client_golang's Go collector with runtime metrics, and the apps' own app_* metrics) and for
// .NET: .NET 9's System.Runtime meter (dotnet_*) and OpenTelemetry's runtime instrumentation
// (process_runtime_dotnet_*), as OpenTelemetry's Prometheus exporter names them, and
// prometheus-net.DotNetRuntime's collectors (dotnet_contention_*, dotnet_threadpool_*). Several entries
// may feed one measurement: the values of those an app exposes are added up; one it does not
// expose adds nothing (a measurement no entry finds is absent, not zero).
func DefaultCounters() []api.CounterSpec {
	rate := func(metric, name string, scale float64) api.CounterSpec {
		return api.CounterSpec{Metric: metric, Measurement: name, Read: ReadRate, Scale: scale}
	}
	gauge := func(metric, name string) api.CounterSpec {
		return api.CounterSpec{Metric: metric, Measurement: name, Read: ReadGauge, Scale: 1}
	}
	p99ms := func(metric, name string) api.CounterSpec {
		return api.CounterSpec{Metric: metric, Measurement: name, Read: ReadQuantile, Quantile: 0.99, Scale: 1000}
	}
	return []api.CounterSpec{
		rate("app_requests_total", RequestsPerSecond, 1),
		rate("go_sync_mutex_wait_total_seconds_total", LockContention, 1000),
		rate("app_exceptions_total", ExceptionCount, 1),
		rate("dotnet_exceptions_total", ExceptionCount, 1),
		rate("process_runtime_dotnet_exceptions_count_total", ExceptionCount, 1),
		rate("dotnet_monitor_lock_contentions_total", MonitorLockContention, 1),
		rate("process_runtime_dotnet_monitor_lock_contention_count_total", MonitorLockContention, 1),
		rate("dotnet_contention_total", MonitorLockContention, 1),
		rate("dotnet_contention_seconds_total", LockContention, 1000),
		rate("go_gc_duration_seconds", GCPause, 1000),
		rate("dotnet_gc_pause_time_seconds_total", GCPause, 1000),
		rate("process_runtime_dotnet_gc_duration_nanoseconds_total", GCPause, 1e-6),
		p99ms("go_gc_pauses_seconds", GCPauseP99),
		gauge("go_goroutines", Goroutines),
		gauge("go_threads", Threads),
		gauge("dotnet_thread_pool_thread_count", Threads),
		gauge("process_runtime_dotnet_thread_pool_threads_count", Threads),
		gauge("dotnet_threadpool_num_threads", Threads),
		gauge("app_dispatch_queue_length", QueueLength),
		gauge("dotnet_thread_pool_queue_length", QueueLength),
		gauge("process_runtime_dotnet_thread_pool_queue_length", QueueLength),
		p99ms("go_sched_latencies_seconds", SchedLatencyP99),
		rate("app_db_queries_total", DBQueries, 1),
	}
}

// WithDefaultCounters returns a job's counters merged with the defaults by measurement name: the
// job's own entries first, then each default whose measurement none of them produces. A job's
// entry for runtime-counter/exception-count thus replaces both default sources of it.
func WithDefaultCounters(own []api.CounterSpec) []api.CounterSpec {
	mine := make(map[string]bool, len(own))
	for _, c := range own {
		name := c.Measurement
		if name == "" {
			name = c.Metric
		}
		mine[name] = true
	}
	out := append([]api.CounterSpec(nil), own...)
	for _, c := range DefaultCounters() {
		if !mine[c.Measurement] {
			out = append(out, c)
		}
	}
	return out
}
