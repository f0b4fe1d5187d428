//go:build measure

package e2e

import (
	"fmt"
	"math"
	"testing"

	"github.com/crankshaft/crankshaft/internal/influxtest"
)

// TestAppRequestsPerSecondEachSecond: TestAppRequestsPerSecondTimeline's run at a fixed 20,000
// req/s, each steady-state second of the application's requests/s within 10 % of the load's mean
// (the gate checks their mean within a factor of 2 at 5,000 req/s). A busy machine can disturb a
// second: up to 4 runs.
func TestAppRequestsPerSecondEachSecond(t *testing.T) {
	db := influxtest.Start(t)
	var last error
	for attempt := range 4 {
		rps, steady := rpsTimelineRun(t, db, 20000)
		last = nil
		for i, v := range steady {
			if math.Abs(v-rps) > 0.1*rps {
				last = fmt.Errorf("second %d: %.0f req/s, load mean %.0f (steady samples %.0f)", i+2, v, rps, steady)
				break
			}
		}
		if last == nil {
			return
		}
		t.Logf("attempt %d: %v", attempt+1, last)
	}
	t.Error(last)
}
