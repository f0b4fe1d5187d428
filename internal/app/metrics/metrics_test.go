package metrics_test

import (
	"context"
	"log/slog"
	"net"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"

	"github.com/crankshaft/crankshaft/internal/app/apptest"
	"github.com/crankshaft/crankshaft/internal/app/metrics"
)

func TestExportedNames(t *testing.T) {
	m := metrics.New()
	m.AddRequests(3)
	m.AddRequests(0)
	m.Exception(metrics.KindDB)
	m.RegisterQueueLength(func() int { return 7 })
	m.RegisterQueueLength(func() int { return 9 }) // ignored: first registration wins

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- m.Serve(ctx, ln, slog.New(slog.DiscardHandler)) }()
	defer func() {
		cancel()
		select {
		case err := <-served:
			if err != nil {
				t.Errorf("Serve: %v", err)
			}
		case <-time.After(5 * time.Second):
			t.Errorf("Serve did not return")
		}
	}()

	mfs := apptest.Scrape(t, ln.Addr().String())
	types := map[string]dto.MetricType{
		metrics.MutexWaitSeconds:    dto.MetricType_COUNTER,
		metrics.SchedLatencies:      dto.MetricType_HISTOGRAM,
		metrics.RequestsTotal:       dto.MetricType_COUNTER,
		metrics.ExceptionsTotal:     dto.MetricType_COUNTER,
		metrics.QueueLength:         dto.MetricType_GAUGE,
		"process_cpu_seconds_total": dto.MetricType_COUNTER,
	}
	for name, typ := range types {
		mf, ok := mfs[name]
		if !ok {
			t.Errorf("%s not exported", name)
			continue
		}
		if mf.GetType() != typ {
			t.Errorf("%s has type %v, want %v", name, mf.GetType(), typ)
		}
	}
	want := []struct {
		name   string
		labels map[string]string
		value  float64
	}{
		{metrics.RequestsTotal, nil, 3},
		{metrics.ExceptionsTotal, map[string]string{"kind": "db"}, 1},
		{metrics.ExceptionsTotal, map[string]string{"kind": "panic"}, 0},
		{metrics.ExceptionsTotal, map[string]string{"kind": "bad_request"}, 0},
		{metrics.QueueLength, nil, 7},
	}
	for _, w := range want {
		if v, ok := apptest.Value(mfs, w.name, w.labels); !ok || v != w.value {
			t.Errorf("%s%v = %v (present %v), want %v", w.name, w.labels, v, ok, w.value)
		}
	}
}
