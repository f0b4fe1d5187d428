//go:build measure

package agent

import "testing"

// TestDefaultCountersPerScrape: TestDefaultCountersWhenNoneNamed with a mutex wait that grows 5 ms
// every scrape, a scrape every ~50 ms: about 100 ms/s only while the agent scrapes on time (one
// that grew 10 a scrape read 1,360/s when a stolen host delayed one tick and rushed the next).
func TestDefaultCountersPerScrape(t *testing.T) {
	defaultCounters(t, func(n int64) float64 { return float64(n) * 0.005 })
}
