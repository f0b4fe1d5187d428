package agent

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

func TestCountersScrapedWhileRunning(t *testing.T) {
	t.Parallel()
	// 200 exceptions a second of the server's clock: a counter of time, not of scrapes (one that
	// grew 10 a scrape read 1,360/s when a stolen host delayed one tick and rushed the next).
	start := time.Now()
	var scrapes atomic.Int64
	metrics := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		scrapes.Add(1)
		n := int64(200 * time.Since(start).Seconds())
		fmt.Fprintf(w, "# TYPE app_exceptions_total counter\napp_exceptions_total{kind=\"panic\"} %d\n", n)
	}))
	defer metrics.Close()
	ta := newTestAgent(t, Options{})
	id := ta.submit(t, api.Job{Executable: "sh", Arguments: `-c 'sleep 30'`, Interval: api.Duration(50 * time.Millisecond),
		MetricsURL: metrics.URL + "/metrics",
		Counters:   []api.CounterSpec{{Metric: "app_exceptions_total", Measurement: measure.ExceptionCount, Read: "rate"}}})
	ta.waitState(t, id, api.StateRunning)
	deadline := time.Now().Add(10 * time.Second)
	for {
		ms, err := ta.c.Measurements(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		var rates []float64
		for _, m := range ms.Measurements {
			if m.Name == measure.ExceptionCount {
				rates = append(rates, m.Value)
			}
		}
		if len(rates) >= 3 {
			// 200/s, scraped every ~50 ms.
			for _, r := range rates {
				if r < 50 || r > 1000 {
					t.Errorf("exception rates %v, want about 200/s", rates)
					break
				}
			}
			hasMeta := false
			for _, md := range ms.Metadata {
				hasMeta = hasMeta || md.Name == measure.ExceptionCount && md.Aggregate == api.OpAvg
			}
			if !hasMeta {
				t.Errorf("metadata lacks %s: %+v", measure.ExceptionCount, ms.Metadata)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("only %d counter samples after %d scrapes", len(rates), scrapes.Load())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestDefaultCountersWhenNoneNamed: a job with a metrics endpoint and no counters gets the
// defaults; a default metric the endpoint does not expose is absent, not zero. The mutex wait
// grows 100 ms a second of the server's clock, as TestCountersScrapedWhileRunning's counter does:
// a counter of time, which scrape jitter on a busy machine does not move, so the rate read is
// about 100 ms/s. (TestDefaultCountersPerScrape, make measure, grows it per scrape instead.)
func TestDefaultCountersWhenNoneNamed(t *testing.T) {
	t.Parallel()
	start := time.Now()
	defaultCounters(t, func(int64) float64 { return 0.1 * time.Since(start).Seconds() })
}

// defaultCounters runs a job whose metrics endpoint serves go_goroutines 42 and a mutex wait of
// wait(scrape number) seconds, and checks the defaults are scraped: goroutines 42, lock contention
// about 100 ms/s (25-500), exception-count absent.
func defaultCounters(t *testing.T, wait func(scrape int64) float64) {
	t.Helper()
	var scrapes atomic.Int64
	metrics := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := scrapes.Add(1)
		fmt.Fprintf(w, "# TYPE go_goroutines gauge\ngo_goroutines 42\n"+
			"# TYPE go_sync_mutex_wait_total_seconds_total counter\ngo_sync_mutex_wait_total_seconds_total %g\n", wait(n))
	}))
	defer metrics.Close()
	ta := newTestAgent(t, Options{})
	id := ta.submit(t, api.Job{Executable: "sh", Arguments: `-c 'sleep 30'`, Interval: api.Duration(50 * time.Millisecond),
		MetricsURL: metrics.URL + "/metrics"})
	ta.waitState(t, id, api.StateRunning)
	deadline := time.Now().Add(10 * time.Second)
	for {
		ms, err := ta.c.Measurements(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string][]float64{}
		for _, m := range ms.Measurements {
			got[m.Name] = append(got[m.Name], m.Value)
		}
		if len(got[measure.LockContention]) >= 3 {
			if g := got[measure.Goroutines]; len(g) == 0 || g[0] != 42 {
				t.Errorf("goroutines %v, want 42", g)
			}
			for _, v := range got[measure.LockContention] {
				if v < 25 || v > 500 {
					t.Errorf("lock contention %v, want about 100 ms/s", got[measure.LockContention])
					break
				}
			}
			if v, ok := got[measure.ExceptionCount]; ok {
				t.Errorf("exception-count %v, want absent: the endpoint does not expose it", v)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("only %v after %d scrapes", got, scrapes.Load())
		}
		time.Sleep(50 * time.Millisecond)
	}
}
