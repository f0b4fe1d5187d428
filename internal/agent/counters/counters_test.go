package counters

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/api"
)

// exposition returns the endpoint's text at scrape n (0, 1, ...).
func exposition(n int) string {
	return fmt.Sprintf(`# TYPE app_requests_total counter
app_requests_total %d
# TYPE app_exceptions_total counter
app_exceptions_total{kind="panic"} %d
app_exceptions_total{kind="error"} %d
# TYPE go_goroutines gauge
go_goroutines 7
# TYPE rpc_seconds summary
rpc_seconds{quantile="0.5"} 0.012
rpc_seconds{quantile="0.99"} 0.25
rpc_seconds_sum 10
rpc_seconds_count 100
# TYPE latency_seconds histogram
latency_seconds_bucket{le="0.001"} %d
latency_seconds_bucket{le="0.01"} %d
latency_seconds_bucket{le="0.1"} %d
latency_seconds_bucket{le="+Inf"} %d
latency_seconds_sum 1
latency_seconds_count %d
`, 1000+500*n, 1+n, 2+3*n, 0, 100*n, 100+100*n, 100+100*n, 100+100*n)
}

func TestScrape(t *testing.T) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, exposition(int(n.Load())))
	}))
	defer srv.Close()
	s, err := New(srv.URL, []api.CounterSpec{
		{Metric: "app_requests_total", Measurement: "app/rps", Read: ReadRate},
		{Metric: "app_exceptions_total", Measurement: "app/exceptions", Read: ReadRate},
		{Metric: `app_exceptions_total{kind="panic"}`, Measurement: "app/panics", Read: ReadRate},
		{Metric: "go_goroutines", Measurement: "app/goroutines", Read: ReadGauge},
		{Metric: "rpc_seconds", Measurement: "app/rpc-p99", Read: ReadQuantile, Quantile: 0.99, Scale: 1000},
		{Metric: "latency_seconds", Measurement: "app/latency-p50", Read: ReadQuantile, Quantile: 0.5, Scale: 1000},
		{Metric: "missing_total", Measurement: "app/missing", Read: ReadGauge},
	}, srv.Client())
	if err != nil {
		t.Fatal(err)
	}
	clock := time.Unix(1000, 0)
	s.now = func() time.Time { return clock }
	first, err := s.Scrape(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want1 := map[string]float64{"app/goroutines": 7, "app/rpc-p99": 250}
	check(t, "first scrape", first, want1)
	n.Store(1)
	clock = clock.Add(2 * time.Second)
	second, err := s.Scrape(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	// Between the scrapes: 500 requests in 2 s; 1 panic + 3 errors; 100 observations, all in
	// (0.001, 0.01]: the median is halfway through that bucket.
	check(t, "second scrape", second, map[string]float64{
		"app/rps": 250, "app/exceptions": 2, "app/panics": 0.5, "app/goroutines": 7, "app/rpc-p99": 250, "app/latency-p50": 5.5,
	})
}

func check(t *testing.T, what string, got, want map[string]float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: got %v, want %v", what, got, want)
	}
	for k, w := range want {
		if g, ok := got[k]; !ok || math.Abs(g-w) > 1e-9 {
			t.Errorf("%s: %s = %v (present %v), want %v", what, k, g, ok, w)
		}
	}
}

func TestCounterResetGivesNoRate(t *testing.T) {
	sp, _ := parseSpec(api.CounterSpec{Metric: "x", Read: ReadRate})
	if _, ok := value(sp, reading{ok: true, sum: 100}, reading{ok: true, sum: 5}, time.Second); ok {
		t.Error("a counter that went down gave a rate")
	}
}

func TestBadSpecs(t *testing.T) {
	for _, c := range []struct {
		spec api.CounterSpec
		want string
	}{
		{api.CounterSpec{Metric: "x", Read: "average"}, `read "average": want rate, gauge or quantile`},
		{api.CounterSpec{Metric: "", Read: ReadGauge}, "no metric name"},
		{api.CounterSpec{Metric: `x{kind="a"`, Read: ReadGauge}, "unclosed {"},
		{api.CounterSpec{Metric: `x{kind}`, Read: ReadGauge}, `label matcher "kind": want name="value"`},
	} {
		if _, err := New("http://127.0.0.1:1/metrics", []api.CounterSpec{c.spec}, nil); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("New(%+v) = %v, want an error saying %q", c.spec, err, c.want)
		}
	}
}

func TestHistogramQuantile(t *testing.T) {
	bs := []bucket{{0.1, 10}, {0.2, 30}, {math.Inf(1), 40}}
	for _, c := range []struct{ q, want float64 }{{0.25, 0.1}, {0.5, 0.15}, {0.75, 0.2}, {0.99, 0.2}} {
		if got, ok := histogramQuantile(c.q, bs); !ok || math.Abs(got-c.want) > 1e-9 {
			t.Errorf("q%.2f = %v, want %v", c.q, got, c.want)
		}
	}
	if _, ok := histogramQuantile(0.5, []bucket{{1, 0}, {math.Inf(1), 0}}); ok {
		t.Error("a quantile of no observations")
	}
}
