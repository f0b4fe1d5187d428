package counters

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/measure"
)

// dotnetExposition is what a .NET app's OpenTelemetry Prometheus exporter serves at scrape n,
// under .NET 9's System.Runtime meter names (dotnet_*) or OpenTelemetry's runtime
// instrumentation names (process_runtime_dotnet_*): the same 10 exceptions, 4 contended
// monitor locks and 30 ms of GC pause per second, 12 pool threads and 5 queued items.
func dotnetExposition(otel bool, n int) string {
	if otel {
		return fmt.Sprintf(`# TYPE process_runtime_dotnet_exceptions_count_total counter
process_runtime_dotnet_exceptions_count_total %d
# TYPE process_runtime_dotnet_monitor_lock_contention_count_total counter
process_runtime_dotnet_monitor_lock_contention_count_total %d
# TYPE process_runtime_dotnet_gc_duration_nanoseconds_total counter
process_runtime_dotnet_gc_duration_nanoseconds_total %d
# TYPE process_runtime_dotnet_thread_pool_threads_count gauge
process_runtime_dotnet_thread_pool_threads_count 12
# TYPE process_runtime_dotnet_thread_pool_queue_length gauge
process_runtime_dotnet_thread_pool_queue_length 5
`, 100+10*n, 7+4*n, 1_000_000_000+30_000_000*n)
	}
	return fmt.Sprintf(`# TYPE dotnet_exceptions_total counter
dotnet_exceptions_total{error_type="System.InvalidOperationException"} %d
# TYPE dotnet_monitor_lock_contentions_total counter
dotnet_monitor_lock_contentions_total %d
# TYPE dotnet_gc_pause_time_seconds_total counter
dotnet_gc_pause_time_seconds_total %g
# TYPE dotnet_thread_pool_thread_count gauge
dotnet_thread_pool_thread_count 12
# TYPE dotnet_thread_pool_queue_length gauge
dotnet_thread_pool_queue_length 5
`, 100+10*n, 7+4*n, 1+0.03*float64(n))
}

// TestDotnetCounterNames: the default counters read both .NET namings into the same
// measurements, with the same values.
func TestDotnetCounterNames(t *testing.T) {
	want := map[string]float64{
		measure.ExceptionCount: 10, measure.MonitorLockContention: 4, measure.GCPause: 30,
		measure.Threads: 12, measure.QueueLength: 5,
	}
	for _, otel := range []bool{false, true} {
		got := scrapeTwice(t, measure.DefaultCounters(), 2*time.Second, func(n int) string { return dotnetExposition(otel, 2*n) })
		check(t, fmt.Sprintf("otel names %v", otel), got, want)
	}
}

// scrapeTwice serves exposition(0) then exposition(1) and returns the second scrape's values,
// the scraper's clock having moved by dt between the two.
func scrapeTwice(t *testing.T, specs []api.CounterSpec, dt time.Duration, exposition func(n int) string) map[string]float64 {
	t.Helper()
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, exposition(int(n.Load())))
	}))
	defer srv.Close()
	s, err := New(srv.URL, specs, srv.Client())
	if err != nil {
		t.Fatal(err)
	}
	clock := time.Unix(1000, 0)
	s.now = func() time.Time { return clock }
	if _, err := s.Scrape(context.Background()); err != nil {
		t.Fatal(err)
	}
	n.Store(1)
	clock = clock.Add(dt)
	got, err := s.Scrape(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// prometheusNetExposition is what prometheus-net with prometheus-net.DotNetRuntime's collectors
// serves at scrape n: 10 exceptions, 4 contended locks waiting 25 ms in all, per second; 12 pool
// threads.
func prometheusNetExposition(n int) string {
	return fmt.Sprintf(`# HELP dotnet_exceptions_total Count of exceptions thrown, broken down by type
# TYPE dotnet_exceptions_total counter
dotnet_exceptions_total{type="System.InvalidOperationException"} %d
# HELP dotnet_contention_total The number of locks contended
# TYPE dotnet_contention_total counter
dotnet_contention_total %d
# HELP dotnet_contention_seconds_total The total amount of time spent contending locks
# TYPE dotnet_contention_seconds_total counter
dotnet_contention_seconds_total %g
# HELP dotnet_threadpool_num_threads The number of active threads in the thread pool
# TYPE dotnet_threadpool_num_threads gauge
dotnet_threadpool_num_threads 12
`, 100+10*n, 7+4*n, 1.5+0.025*float64(n))
}

// TestPrometheusNetCounterNames: the third naming lands in the same measurements: exceptions/s,
// contended locks/s, and the time waiting on them as lock contention in ms/s (as Go's mutex wait).
func TestPrometheusNetCounterNames(t *testing.T) {
	got := scrapeTwice(t, measure.DefaultCounters(), 2*time.Second, func(n int) string { return prometheusNetExposition(2 * n) })
	check(t, "prometheus-net", got, map[string]float64{
		measure.ExceptionCount: 10, measure.MonitorLockContention: 4, measure.LockContention: 25, measure.Threads: 12,
	})
}
