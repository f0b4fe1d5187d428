package counters

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/api"
)

// FuzzExposition: any text an app's metrics endpoint sends, scraped twice (so rates and
// quantiles are computed), is read without a panic, and what is measured is a finite number.
// Text that parses whole parses as well when only the specs' families are kept, into the same
// families.
func FuzzExposition(f *testing.F) {
	f.Add(exposition(0), exposition(1))
	f.Add("# TYPE x histogram\nx_bucket{le=\"+Inf\"} 1\n", "# TYPE x histogram\nx_bucket{le=\"1\"} 5\nx_bucket{le=\"+Inf\"} 0\n")
	f.Add("x NaN\n", "x +Inf\n")
	specs := []api.CounterSpec{
		{Metric: "app_requests_total", Measurement: "rps", Read: ReadRate},
		{Metric: `app_exceptions_total{kind="panic"}`, Measurement: "panics", Read: ReadRate},
		{Metric: "go_goroutines", Measurement: "goroutines", Read: ReadGauge},
		{Metric: "rpc_seconds", Measurement: "rpc-p99", Read: ReadQuantile, Quantile: 0.99},
		{Metric: "latency_seconds", Measurement: "p50", Read: ReadQuantile, Quantile: 0.5},
		{Metric: "x", Measurement: "x-p90", Read: ReadQuantile, Quantile: 0.9},
		{Metric: "x", Measurement: "x-rate", Read: ReadRate},
	}
	f.Fuzz(func(t *testing.T, first, second string) {
		s, err := New("http://127.0.0.1:1/metrics", specs, nil)
		if err != nil {
			t.Fatal(err)
		}
		clock := time.Unix(1000, 0)
		s.now = func() time.Time { return clock }
		for _, text := range []string{first, second} {
			all, wholeErr := parseText(strings.NewReader(text))
			fams, err := s.parse(strings.NewReader(text))
			if wholeErr == nil {
				if err != nil {
					t.Fatalf("%q: parses whole, but its specs' families fail: %v", text, err)
				}
				sameFamilies(t, s, all, fams)
			}
			if err != nil {
				continue
			}
			for name, v := range s.observe(fams, time.Now()) {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					t.Logf("%s = %v", name, v) // an app may expose NaN; it must not crash the scrape
				}
			}
			clock = clock.Add(time.Second)
		}
	})
}
