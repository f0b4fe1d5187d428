// Package metrics holds the apps' Prometheus registry: Go runtime metrics (including
// go_sync_mutex_wait_total_seconds_total and go_sched_latencies_seconds), process metrics and the
// app counters, served on their own port by Serve.
package metrics

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Exported metric names.
const (
	RequestsTotal    = "app_requests_total"
	ExceptionsTotal  = "app_exceptions_total"
	QueueLength      = "app_dispatch_queue_length"
	DBQueriesTotal   = "app_db_queries_total"
	MutexWaitSeconds = "go_sync_mutex_wait_total_seconds_total"
	SchedLatencies   = "go_sched_latencies_seconds"
)

// Exception kinds every app reports (pre-created so they are scraped as 0).
const (
	KindPanic      = "panic"
	KindBadRequest = "bad_request"
	KindDB         = "db"
)

// Metrics is one app's registry and counters. It implements httpserver.Observer.
type Metrics struct {
	Registry   *prometheus.Registry
	requests   *stampedCounter
	exceptions *prometheus.CounterVec
	queue      sync.Once
}

// stampedCounter is a counter exported with the time it was read (a Prometheus sample
// timestamp), so a scraper's rate divides by the app's own interval between two reads, not by
// its round trip, which a busy machine stretches unevenly.
type stampedCounter struct {
	desc *prometheus.Desc
	n    atomic.Uint64
}

func (c *stampedCounter) Describe(ch chan<- *prometheus.Desc) { ch <- c.desc }

func (c *stampedCounter) Collect(ch chan<- prometheus.Metric) {
	m := prometheus.MustNewConstMetric(c.desc, prometheus.CounterValue, float64(c.n.Load()))
	ch <- prometheus.NewMetricWithTimestamp(time.Now(), m)
}

// New returns a registry with the Go runtime collector (all runtime/metrics), the process
// collector, app_requests_total (stamped with the time it is read) and app_exceptions_total{kind}.
func New() *Metrics {
	m := &Metrics{
		Registry: prometheus.NewRegistry(),
		requests: &stampedCounter{desc: prometheus.NewDesc(RequestsTotal, "Requests answered.", nil, nil)},
		exceptions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: ExceptionsTotal, Help: "Recovered panics and failed requests, by kind.",
		}, []string{"kind"}),
	}
	m.Registry.MustRegister(
		collectors.NewGoCollector(collectors.WithGoCollectorRuntimeMetrics(collectors.MetricsAll)),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		m.requests, m.exceptions,
	)
	for _, k := range []string{KindPanic, KindBadRequest} {
		m.exceptions.WithLabelValues(k)
	}
	return m
}

// AddRequests counts n answered requests.
func (m *Metrics) AddRequests(n int) {
	if n > 0 {
		m.requests.n.Add(uint64(n))
	}
}

// Exception counts one failure of the given kind.
func (m *Metrics) Exception(kind string) { m.exceptions.WithLabelValues(kind).Inc() }

// ExceptionCounter returns the counter of one kind, creating it (so it is scraped as 0).
func (m *Metrics) ExceptionCounter(kind string) prometheus.Counter {
	return m.exceptions.WithLabelValues(kind)
}

// RegisterQueueLength exports app_dispatch_queue_length read from f at scrape time (f may be
// nil: the gauge is then 0). Only the first call has an effect.
func (m *Metrics) RegisterQueueLength(f func() int) {
	m.queue.Do(func() {
		m.Registry.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: QueueLength, Help: "Requests queued for a dispatch worker.",
		}, func() float64 {
			if f == nil {
				return 0
			}
			return float64(f())
		}))
	})
}

// Handler serves the registry in the Prometheus text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.Registry, promhttp.HandlerOpts{Registry: m.Registry})
}

// Serve serves /metrics (and Go's /debug/pprof/ profiles) on ln until ctx ends.
func (m *Metrics) Serve(ctx context.Context, ln net.Listener, log *slog.Logger) error {
	mux := http.NewServeMux()
	mux.Handle("/metrics", m.Handler())
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	stop := context.AfterFunc(ctx, func() {
		sctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		if err := srv.Shutdown(sctx); err != nil {
			log.Warn("metrics shutdown", slog.Any("err", err))
		}
	})
	defer stop()
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("metrics on %s: %w", ln.Addr(), err)
	}
	return nil
}
