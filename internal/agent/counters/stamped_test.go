package counters

import (
	"fmt"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/api"
)

// TestRateUsesExporterTimestamps: when the exporter stamps its samples (as the apps stamp
// app_requests_total), a rate divides by the interval between those stamps, not by the
// scraper's own, which a slow round trip stretches: 1000 requests in the app's 1 s is 1000/s
// though the scrapes were 1.6 s apart.
func TestRateUsesExporterTimestamps(t *testing.T) {
	got := scrapeTwice(t, []api.CounterSpec{
		{Metric: "app_requests_total", Measurement: "rps", Read: ReadRate},
		{Metric: "other_total", Measurement: "other", Read: ReadRate},
	}, 1600*time.Millisecond, func(i int) string {
		return fmt.Sprintf("# TYPE app_requests_total counter\napp_requests_total %d %d\n# TYPE other_total counter\nother_total %d\n",
			5000+1000*i, 1_700_000_000_000+1000*i, 100*i)
	})
	check(t, "stamped", got, map[string]float64{"rps": 1000, "other": 100 / 1.6})
}
