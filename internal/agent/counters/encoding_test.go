package counters

import (
	"compress/gzip"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/crankshaft/crankshaft/internal/api"
)

// A scrape asks for the exposition uncompressed (net/http asks for gzip unless told), which
// client_golang's handler then sends as is: compressing and inflating it cost the job and the
// agent more CPU than the text itself.
func TestScrapeAsksForNoCompression(t *testing.T) {
	reg := prometheus.NewRegistry()
	g := prometheus.NewGauge(prometheus.GaugeOpts{Name: "queue_length"})
	g.Set(3)
	reg.MustRegister(g)
	h := promhttp.HandlerFor(reg, promhttp.HandlerOpts{})
	var asked string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked = r.Header.Get("Accept-Encoding")
		h.ServeHTTP(w, r)
	}))
	defer srv.Close()
	got := scrapeQueue(t, srv)
	if asked != "identity" {
		t.Errorf("Accept-Encoding %q, want identity", asked)
	}
	check(t, "scrape", got, map[string]float64{"queue": 3})
}

// TestScrapeReadsGzipNotAskedFor: an endpoint that compresses whatever it is asked (Accept-Encoding
// identity) is still read: its Content-Encoding says gzip, and the scrape decompresses.
func TestScrapeReadsGzipNotAskedFor(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Encoding", "gzip")
		zw := gzip.NewWriter(w)
		io.WriteString(zw, "# TYPE queue_length gauge\nqueue_length 7\n")
		zw.Close()
	}))
	defer srv.Close()
	check(t, "scrape", scrapeQueue(t, srv), map[string]float64{"queue": 7})
}

// scrapeQueue scrapes srv once for its gauge queue_length, read as measurement "queue".
func scrapeQueue(t *testing.T, srv *httptest.Server) map[string]float64 {
	t.Helper()
	s, err := New(srv.URL, []api.CounterSpec{{Metric: "queue_length", Measurement: "queue", Read: ReadGauge}}, srv.Client())
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.Scrape(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return got
}
