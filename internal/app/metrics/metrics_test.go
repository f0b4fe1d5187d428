package metrics_test

import (
	"context"
	"github.com/crankshaft/crankshaft/internal/testutil"
	"log/slog"
	"net"
	"testing"

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

	addr := testutil.ServeLoopback(t, func(ctx context.Context, ln net.Listener) error {
		return m.Serve(ctx, ln, slog.New(slog.DiscardHandler))
	})

	mfs := apptest.Scrape(t, addr)
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
