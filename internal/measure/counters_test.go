package measure_test

import (
	"reflect"
	"testing"

	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/measure"
)

func TestWithDefaultCountersMergesByMeasurement(t *testing.T) {
	own := []api.CounterSpec{
		{Metric: `app_exceptions_total{kind="panic"}`, Measurement: measure.ExceptionCount, Read: measure.ReadRate},
		{Metric: "http_requests_total", Measurement: "app/requests", Read: measure.ReadRate},
	}
	got := measure.WithDefaultCounters(own)
	if !reflect.DeepEqual(got[:2], own) {
		t.Errorf("own entries first: got %+v", got[:2])
	}
	for _, c := range got[2:] {
		if c.Measurement == measure.ExceptionCount {
			t.Errorf("default %+v kept although the job maps %s itself", c, measure.ExceptionCount)
		}
	}
	if want := len(measure.DefaultCounters()) - 3; len(got)-2 != want { // the three exception sources replaced
		t.Errorf("%d defaults kept, want %d", len(got)-2, want)
	}
	if n := len(measure.WithDefaultCounters(nil)); n != len(measure.DefaultCounters()) {
		t.Errorf("no counters of its own: %d, want every default", n)
	}
}

func TestDefaultCountersShape(t *testing.T) {
	want := map[string]api.CounterSpec{
		"app_requests_total":                     {Measurement: measure.RequestsPerSecond, Read: "rate", Scale: 1},
		"go_sync_mutex_wait_total_seconds_total": {Measurement: measure.LockContention, Read: "rate", Scale: 1000},
		"app_exceptions_total":                   {Measurement: measure.ExceptionCount, Read: "rate", Scale: 1},
		"dotnet_exceptions_total":                {Measurement: measure.ExceptionCount, Read: "rate", Scale: 1},
		"dotnet_monitor_lock_contentions_total":  {Measurement: measure.MonitorLockContention, Read: "rate", Scale: 1},
		"go_gc_duration_seconds":                 {Measurement: measure.GCPause, Read: "rate", Scale: 1000},
		"go_goroutines":                          {Measurement: measure.Goroutines, Read: "gauge", Scale: 1},
		"go_threads":                             {Measurement: measure.Threads, Read: "gauge", Scale: 1},
		"app_dispatch_queue_length":              {Measurement: measure.QueueLength, Read: "gauge", Scale: 1},
		"go_sched_latencies_seconds":             {Measurement: measure.SchedLatencyP99, Read: "quantile", Quantile: 0.99, Scale: 1000},
	}
	got := map[string]api.CounterSpec{}
	for _, c := range measure.DefaultCounters() {
		m := c.Metric
		c.Metric = ""
		got[m] = c
	}
	for metric, w := range want {
		if got[metric] != w {
			t.Errorf("%s: %+v, want %+v", metric, got[metric], w)
		}
	}
}
