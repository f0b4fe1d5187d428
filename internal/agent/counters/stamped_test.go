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
)

// TestRateUsesExporterTimestamps: when the exporter stamps its samples (as the apps stamp
// app_requests_total), a rate divides by the interval between those stamps, not by the
// scraper's own, which a slow round trip stretches: 1000 requests in the app's 1 s is 1000/s
// though the scrapes were 1.6 s apart.
func TestRateUsesExporterTimestamps(t *testing.T) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		i := int(n.Load())
		fmt.Fprintf(w, "# TYPE app_requests_total counter\napp_requests_total %d %d\n# TYPE other_total counter\nother_total %d\n",
			5000+1000*i, 1_700_000_000_000+1000*i, 100*i)
	}))
	defer srv.Close()
	s, err := New(srv.URL, []api.CounterSpec{
		{Metric: "app_requests_total", Measurement: "rps", Read: ReadRate},
		{Metric: "other_total", Measurement: "other", Read: ReadRate},
	}, srv.Client())
	if err != nil {
		t.Fatal(err)
	}
	clock := time.Unix(1000, 0)
	s.now = func() time.Time { return clock }
	if _, err := s.Scrape(context.Background()); err != nil {
		t.Fatal(err)
	}
	n.Store(1)
	clock = clock.Add(1600 * time.Millisecond)
	got, err := s.Scrape(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	check(t, "stamped", got, map[string]float64{"rps": 1000, "other": 100 / 1.6})
}
