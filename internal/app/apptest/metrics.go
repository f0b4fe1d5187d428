package apptest

import (
	"testing"

	"github.com/crankshaft/crankshaft/internal/app/metrics"
)

// CheckMetrics scrapes an app after CheckHTTP and checks the names every app exports, at least
// minRequests answered requests, the bad requests CheckHTTP sent, and no panic.
func CheckMetrics(t *testing.T, addr string, minRequests float64) {
	t.Helper()
	mfs := Scrape(t, addr)
	for _, name := range []string{metrics.MutexWaitSeconds, metrics.SchedLatencies, metrics.QueueLength,
		metrics.RequestsTotal, metrics.ExceptionsTotal} {
		if _, ok := mfs[name]; !ok {
			t.Errorf("metric %s missing", name)
		}
	}
	if n, _ := Value(mfs, metrics.RequestsTotal, nil); n < minRequests {
		t.Errorf("%s = %v, want >= %v", metrics.RequestsTotal, n, minRequests)
	}
	if n, _ := Value(mfs, metrics.ExceptionsTotal, map[string]string{"kind": metrics.KindBadRequest}); n < 4 {
		t.Errorf("bad_request exceptions = %v, want >= 4 after the malformed requests", n)
	}
	if n, ok := Value(mfs, metrics.ExceptionsTotal, map[string]string{"kind": metrics.KindPanic}); !ok || n != 0 {
		t.Errorf("panic exceptions = %v (present %v), want 0", n, ok)
	}
}
